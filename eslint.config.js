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
    },
  },
  {
    // Tests hand deliberately malformed values to the library.
    files: ['test/**/*.ts', 'libs/**/*.spec.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
