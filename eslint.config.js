// Lint rules for the library, the sample apps and the tests: the recommended sets of ESLint and typescript-eslint,
// without type information (fast), plus the few choices below.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'coverage/**', 'libs/a2a/proto/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,js,mjs}'],
    rules: {
      // TypeScript checks names itself (Node and Jest globals come from tsconfig "types"); the few .mjs fixtures run in Node.
      'no-undef': 'off',
      // A leading underscore marks a parameter that a signature needs and the body does not.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // The library matches control characters on purpose: JSON escapes, header injection, PostgreSQL text.
      'no-control-regex': 'off',
      // Nest's ExecutionContext and Reflector speak of handlers as `Function`; the module implements and calls them.
      '@typescript-eslint/no-unsafe-function-type': 'off',
    },
  },
  {
    // Tests hand deliberately malformed values to the library.
    files: ['test/**/*.ts', 'libs/**/*.spec.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
