/** Deepest nesting of arrays and objects canonicalized; a card's `params` is the signer's input but a peer's on verification. */
export const JCS_MAX_DEPTH = 64;

/** A value RFC 8785 cannot canonicalize: not JSON, a lone surrogate, or nested deeper than {@link JCS_MAX_DEPTH}. */
export class JcsError extends Error {
  override readonly name = 'JcsError';
}

/** JSON's short escapes; every other control character is written `\u00xx`. */
const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\f': '\\f',
  '\r': '\\r',
};
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/g;
/** With the `u` flag a paired surrogate is one code point, so this matches lone ones only. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The RFC 8785 (JCS) form of a JSON value: object keys sorted by UTF-16 code units, no whitespace, numbers in
 * ECMAScript's shortest round-trip form, strings with only `"`, `\` and U+0000–U+001F escaped.
 *
 * Strict where JSON.stringify is lenient, since a signature must cover exactly what a peer parses: NaN, ±Infinity,
 * bigint, `undefined` in arrays, functions, symbols, lone surrogates and objects other than plain ones (Date, Map,
 * class instances) throw {@link JcsError}. Members whose value is `undefined` are left out, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  return write(value, 0);
}

function write(value: unknown, depth: number): string {
  switch (typeof value) {
    case 'string':
      return writeString(value);
    case 'number':
      if (!Number.isFinite(value)) throw new JcsError(`JCS: ${value} is not a JSON number`);
      // Number::toString is the shortest round-trip form RFC 8785 §3.2.2.3 prescribes; it also writes -0 as 0.
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      if (depth >= JCS_MAX_DEPTH) throw new JcsError(`JCS: nested deeper than ${JCS_MAX_DEPTH} levels`);
      return Array.isArray(value) ? writeArray(value, depth + 1) : writeObject(value, depth + 1);
    default:
      throw new JcsError(`JCS: a ${typeof value} is not JSON`);
  }
}

function writeArray(items: readonly unknown[], depth: number): string {
  const parts: string[] = [];
  for (const item of items) {
    if (item === undefined) throw new JcsError('JCS: undefined is not JSON');
    parts.push(write(item, depth));
  }
  return `[${parts.join(',')}]`;
}

function writeObject(object: object, depth: number): string {
  // Plain objects of any realm (a card parsed in a vm context, as Jest's fetch gives): a prototype that is some
  // realm's Object.prototype (its own prototype null), or none. Class instances, Dates and the like are refused.
  const proto: unknown = Object.getPrototypeOf(object);
  if (
    (proto !== null && Object.getPrototypeOf(proto) !== null) ||
    Object.prototype.toString.call(object) !== '[object Object]'
  ) {
    throw new JcsError('JCS: only plain objects are JSON');
  }
  const record = object as Record<string, unknown>;
  const parts: string[] = [];
  // The default sort compares UTF-16 code units, which is RFC 8785's order (§3.2.3).
  for (const key of Object.keys(record).sort()) {
    const member = record[key];
    if (member !== undefined) parts.push(`${writeString(key)}:${write(member, depth)}`);
  }
  return `{${parts.join(',')}}`;
}

function writeString(text: string): string {
  if (LONE_SURROGATE.test(text)) throw new JcsError('JCS: a string holds a lone surrogate');
  return `"${text.replace(NEEDS_ESCAPE, escape)}"`;
}

function escape(char: string): string {
  return SHORT_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
