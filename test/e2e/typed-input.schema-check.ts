/**
 * A small JSON Schema (2020-12) checker for the tests of typed skill inputs: the keywords class-validator-jsonschema
 * emits, and no other. A keyword it does not know throws, so a schema the tests cannot really check fails them instead
 * of passing unchecked. `$ref` resolves `#/$defs/<name>` against the schema document's own root.
 */

type Schema = Record<string, unknown>;

const ANNOTATIONS = new Set(['$schema', 'title', 'description', '$defs', 'nullable']);
const FORMATS: Record<string, RegExp> = {
  date: /^\d{4}-\d{2}-\d{2}$/,
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
};

/** The problems of `value` against `schema` ([] when it conforms), each prefixed with its JSON pointer. */
export function schemaProblems(schema: Schema, value: unknown): string[] {
  const problems: string[] = [];
  check(schema, schema, value, '', problems);
  return problems;
}

export function schemaAccepts(schema: Schema, value: unknown): boolean {
  return schemaProblems(schema, value).length === 0;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function check(root: Schema, schema: Schema, value: unknown, at: string, problems: string[]): void {
  const fail = (what: string) => problems.push(`${at || '/'}: ${what}`);
  for (const [keyword, argument] of Object.entries(schema)) {
    if (ANNOTATIONS.has(keyword)) continue;
    switch (keyword) {
      case '$ref': {
        const name = /^#\/\$defs\/(.+)$/.exec(argument as string)?.[1];
        const target = name === undefined ? undefined : (root.$defs as Record<string, Schema> | undefined)?.[name];
        if (!target) throw new Error(`unresolvable $ref ${String(argument)}`);
        check(root, target, value, at, problems);
        break;
      }
      case 'type': {
        const allowed = Array.isArray(argument) ? argument : [argument];
        const actual = typeOf(value);
        if (!allowed.includes(actual) && !(actual === 'integer' && allowed.includes('number'))) fail(`is ${actual}, not ${allowed.join(' or ')}`);
        break;
      }
      case 'properties':
        if (typeOf(value) !== 'object') break;
        for (const [name, sub] of Object.entries(argument as Record<string, Schema>)) {
          if (Object.hasOwn(value as object, name)) check(root, sub, (value as Record<string, unknown>)[name], `${at}/${name}`, problems);
        }
        break;
      case 'required':
        if (typeOf(value) !== 'object') break;
        for (const name of argument as string[]) if (!Object.hasOwn(value as object, name)) fail(`lacks ${name}`);
        break;
      case 'additionalProperties':
        if (typeOf(value) !== 'object') break;
        for (const name of Object.keys(value as object)) {
          if (Object.hasOwn((schema.properties as object | undefined) ?? {}, name)) continue;
          if (argument === false) fail(`has ${name}, which is not allowed`);
          else if (argument !== true) check(root, argument as Schema, (value as Record<string, unknown>)[name], `${at}/${name}`, problems);
        }
        break;
      case 'items':
        if (Array.isArray(value)) value.forEach((item, index) => check(root, argument as Schema, item, `${at}/${index}`, problems));
        break;
      case 'minItems':
        if (Array.isArray(value) && value.length < (argument as number)) fail(`has fewer than ${String(argument)} items`);
        break;
      case 'maxItems':
        if (Array.isArray(value) && value.length > (argument as number)) fail(`has more than ${String(argument)} items`);
        break;
      case 'minLength':
        if (typeof value === 'string' && [...value].length < (argument as number)) fail(`is shorter than ${String(argument)}`);
        break;
      case 'maxLength':
        if (typeof value === 'string' && [...value].length > (argument as number)) fail(`is longer than ${String(argument)}`);
        break;
      case 'pattern':
        if (typeof value === 'string' && !new RegExp(argument as string, 'u').test(value)) fail(`does not match ${String(argument)}`);
        break;
      case 'format':
        if (!FORMATS[argument as string]) throw new Error(`unknown format ${String(argument)}`);
        if (typeof value === 'string' && !FORMATS[argument as string].test(value)) fail(`is not a ${String(argument)}`);
        break;
      case 'minimum':
        if (typeof value === 'number' && value < (argument as number)) fail(`is less than ${String(argument)}`);
        break;
      case 'maximum':
        if (typeof value === 'number' && value > (argument as number)) fail(`is more than ${String(argument)}`);
        break;
      case 'enum':
        if (!(argument as unknown[]).some((option) => JSON.stringify(option) === JSON.stringify(value))) fail(`is none of ${JSON.stringify(argument)}`);
        break;
      case 'not':
        if (schemaAcceptsAt(root, argument as Schema, value)) fail('matches a schema it must not');
        break;
      case 'oneOf': {
        const matches = (argument as Schema[]).filter((sub) => schemaAcceptsAt(root, sub, value)).length;
        if (matches !== 1) fail(`matches ${matches} of oneOf, not exactly 1`);
        break;
      }
      case 'anyOf':
        if (!(argument as Schema[]).some((sub) => schemaAcceptsAt(root, sub, value))) fail('matches none of anyOf');
        break;
      default:
        throw new Error(`the test checker does not know the keyword "${keyword}"`);
    }
  }
}

function schemaAcceptsAt(root: Schema, schema: Schema, value: unknown): boolean {
  const problems: string[] = [];
  check(root, schema, value, '', problems);
  return problems.length === 0;
}
