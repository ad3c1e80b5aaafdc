import { A2aMessages } from './a2a.messages.js';
import { InvalidA2aOptionsError } from './errors/invalid-a2a-options.error.js';

/**
 * The building blocks of the declarative option tables (`a2a-options.schema.ts`, the scheme factories): each rule says
 * what a value must be and throws, naming the option's path, at the first part of a value that is not.
 */
export interface OptionRule {
  /** What the value must be, as an error message says it. */
  readonly expected: string;
  /** Whether an object rule refuses the key's absence (or `undefined`). */
  readonly required?: boolean;
  /** Whether the value is of this rule's kind (a string for a string rule…): how `anyOf` picks the rule to explain. */
  accepts(value: unknown): boolean;
  check(value: unknown, at: OptionPath): void;
}

/** Where in the options a value sits, and who is told about it: `A2aModule option security.schemes.apiKey`. */
export class OptionPath {
  constructor(
    readonly owner: string,
    readonly path: string,
    private readonly error: new (message: string) => Error,
  ) {}

  key(key: string): OptionPath {
    const segment = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
    return new OptionPath(this.owner, this.path ? `${this.path}.${segment}` : segment, this.error);
  }

  index(index: number): OptionPath {
    return new OptionPath(this.owner, `${this.path}[${index}]`, this.error);
  }

  fail(value: unknown, expected: string): never {
    throw new this.error(A2aMessages.optionMismatch(this.owner, this.path, value, expected));
  }

  refuse(message: string): never {
    throw new this.error(message);
  }
}

/** Checks `value` against `rule`, throwing `error` (InvalidA2aOptionsError by default) at the first mismatch. */
export function checkOptions(
  rule: OptionRule,
  value: unknown,
  owner: string,
  error: new (message: string) => Error = InvalidA2aOptionsError,
): void {
  rule.check(value, new OptionPath(owner, '', error));
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function rule(
  expected: string,
  accepts: (value: unknown) => boolean,
  valid: (value: unknown) => boolean = accepts,
): OptionRule {
  return {
    expected,
    accepts,
    check(value: unknown, at: OptionPath) {
      if (!valid(value)) at.fail(value, expected);
    },
  };
}

/** The same rule, refused when absent. */
export function required(inner: OptionRule): OptionRule {
  return { ...inner, required: true };
}

export const bool = (): OptionRule => rule('true or false', (value) => typeof value === 'boolean');

export const fn = (expected = 'a function'): OptionRule => rule(expected, (value) => typeof value === 'function');

export const text = (expected = 'a non-empty string'): OptionRule =>
  rule(
    expected,
    (value) => typeof value === 'string',
    (value) => typeof value === 'string' && value.length > 0,
  );

/** One of fixed values (strings, booleans). */
export function oneOf(...values: readonly (string | boolean)[]): OptionRule {
  const expected =
    values.length === 1
      ? JSON.stringify(values[0])
      : `one of ${values.map((value) => JSON.stringify(value)).join(', ')}`;
  return rule(
    expected,
    (value) => values.some((known) => typeof known === typeof value),
    (value) => values.includes(value as string | boolean),
  );
}

/** An integer within bounds; `orInfinity` also takes `Infinity` ("no bound"). */
export function integer(
  min: number,
  options: { max?: number; orInfinity?: boolean; expected?: string } = {},
): OptionRule {
  const { max = Number.MAX_SAFE_INTEGER, orInfinity = false } = options;
  const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
  const expected = options.expected ?? `an integer, ${range}${orInfinity ? ', or Infinity' : ''}`;
  return rule(
    expected,
    (value) => typeof value === 'number',
    (value) =>
      (orInfinity && value === Number.POSITIVE_INFINITY) ||
      (Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max),
  );
}

/** A finite number of at least `min`. */
export const atLeast = (min: number, expected: string): OptionRule =>
  rule(
    expected,
    (value) => typeof value === 'number',
    (value) => Number.isFinite(value) && (value as number) >= min,
  );

/** An absolute http or https URL: what a card publishes must be usable as is by a client elsewhere. */
export const httpUrl = (): OptionRule =>
  rule(
    'an absolute http(s) URL, e.g. "https://agent.example.com"',
    (value) => typeof value === 'string',
    (value) => {
      if (typeof value !== 'string' || !URL.canParse(value)) return false;
      const { protocol, hostname } = new URL(value);
      return (protocol === 'https:' || protocol === 'http:') && hostname.length > 0;
    },
  );

/** A path below the origin (`/a2a/jsonrpc`; the leading slash may be left out, `''` is the root). */
export const urlPath = (): OptionRule =>
  rule(
    'a path, e.g. "/a2a/jsonrpc"',
    (value) => typeof value === 'string',
    (value) => typeof value === 'string' && !/[\s?#]/.test(value),
  );

/**
 * A secret given in the options (an API key, a cipher key): a non-empty string, or bytes where `bytes` says so. An
 * unset environment variable arrives as `undefined`, or as the string `"undefined"` once interpolated: both refused.
 */
export function secret(options: { bytes?: boolean } = {}): OptionRule {
  const valid = (value: unknown) =>
    (options.bytes && value instanceof Uint8Array && value.length > 0) ||
    (typeof value === 'string' && value.trim().length > 0 && value !== 'undefined' && value !== 'null');
  return {
    expected: 'a non-empty string',
    accepts: (value) => typeof value === 'string' || (!!options.bytes && value instanceof Uint8Array),
    check(value: unknown, at: OptionPath) {
      if (!valid(value)) at.refuse(A2aMessages.invalidSecret(at.owner, at.path, value));
    },
  };
}

/**
 * Secrets by name (API keys by subject, cipher keys by id): each a secret, at least one, and with `distinct`, no two
 * names sharing one (the message names both, never the secret). What is not an object is not shown either: it may be a
 * secret given where the object of them belongs.
 */
export function secretsByName(options: { bytes?: boolean; distinct?: boolean } = {}): OptionRule {
  const each = secret(options);
  const expected = 'an object of non-empty strings by name, at least one';
  return {
    expected,
    accepts: isObject,
    check(value: unknown, at: OptionPath) {
      if (!isObject(value) || Object.keys(value).length === 0)
        at.refuse(A2aMessages.optionKindMismatch(at.owner, at.path, value, expected));
      const names = new Map<unknown, string>();
      for (const [name, entry] of Object.entries(value)) {
        each.check(entry, at.key(name));
        const first = names.get(entry);
        if (options.distinct && first !== undefined)
          at.refuse(A2aMessages.sharedSecret(at.owner, at.path, first, name));
        names.set(entry, name);
      }
    },
  };
}

export function arrayOf(item: OptionRule, options: { nonEmpty?: boolean } = {}): OptionRule {
  const expected = `${options.nonEmpty ? 'a non-empty' : 'an'} array, each ${item.expected}`;
  return {
    expected,
    accepts: Array.isArray,
    check(value: unknown, at: OptionPath) {
      if (!Array.isArray(value) || (options.nonEmpty && value.length === 0)) at.fail(value, expected);
      value.forEach((entry: unknown, i: number) => item.check(entry, at.index(i)));
    },
  };
}

/** An object whose keys are the user's (names, ids), or any of `keys` when given: every value checked with `item`. */
export function recordOf(item: OptionRule, keys?: readonly string[]): OptionRule {
  const expected = `an object, each value ${item.expected}`;
  return {
    expected,
    accepts: isObject,
    check(value: unknown, at: OptionPath) {
      if (!isObject(value)) at.fail(value, expected);
      for (const [name, entry] of Object.entries(value)) {
        if (keys && !keys.includes(name)) at.refuse(A2aMessages.unknownOption(at.owner, at.key(name).path, keys));
        item.check(entry, at.key(name));
      }
    },
  };
}

/**
 * An options object: only the keys `shape` lists (a misspelt key would otherwise be ignored without a word), each
 * checked by its rule when present; `required` ones must be present.
 */
export function object(shape: Readonly<Record<string, OptionRule>>, expected = 'an object'): OptionRule {
  const known = Object.keys(shape);
  return {
    expected,
    accepts: isObject,
    check(value: unknown, at: OptionPath) {
      if (!isObject(value)) at.fail(value, expected);
      for (const key of Object.keys(value)) {
        if (!Object.hasOwn(shape, key)) at.refuse(A2aMessages.unknownOption(at.owner, at.key(key).path, known));
      }
      for (const [key, inner] of Object.entries(shape)) {
        const entry = value[key];
        if (entry === undefined) {
          if (inner.required) at.key(key).fail(entry, inner.expected);
          continue;
        }
        inner.check(entry, at.key(key));
      }
    },
  };
}

/**
 * An object the user builds in code (a store, a scheme, a sink): its shape is checked, the methods named, not its keys,
 * which are its own business.
 */
export function instance(expected: string, methods: readonly string[], members: readonly string[] = []): OptionRule {
  const valid = (value: unknown) =>
    typeof value === 'object' &&
    value !== null &&
    methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function') &&
    members.every((member) => (value as Record<string, unknown>)[member] !== undefined);
  return rule(expected, (value) => typeof value === 'object' && value !== null, valid);
}

/** One of several kinds: the rule of the value's kind explains a mismatch, or all are listed when none fits. */
export function anyOf(...rules: readonly OptionRule[]): OptionRule {
  const expected = rules.map((inner) => inner.expected).join(', or ');
  return {
    expected,
    accepts: (value) => rules.some((inner) => inner.accepts(value)),
    check(value: unknown, at: OptionPath) {
      const candidates = rules.filter((inner) => inner.accepts(value));
      if (candidates.length === 0) at.fail(value, expected);
      // Several of the same kind (`false` or `true`, two object shapes): the value fits if any one passes.
      const errors: unknown[] = [];
      for (const candidate of candidates) {
        try {
          candidate.check(value, at);
          return;
        } catch (error) {
          errors.push(error);
        }
      }
      throw errors[0];
    },
  };
}
