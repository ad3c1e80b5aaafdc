import { A2A_REALM, type A2aSecurityScheme, type SchemeGrant, type SchemeOutcome } from '../a2a-security-scheme.js';
import { checkOptions, fn, object, required, text } from '../../a2a-options.rules.js';
import { InvalidSecurityConfigError } from '../../errors/security-config.error.js';
import { DEFAULT_MAX_CREDENTIAL_BYTES } from './credential-limits.js';

/** Options of `httpBasicScheme`: how a user name and password are checked and mapped to a principal. */
export interface HttpBasicSchemeOptions {
  /** Checks a user name and password (compare in constant time, e.g. `crypto.scrypt` then `timingSafeEqual`). */
  verify: (user: string, password: string) => SchemeGrant | undefined | Promise<SchemeGrant | undefined>;
  description?: string;
}

const HTTP_BASIC_SCHEME_OPTIONS = object({ verify: required(fn()), description: text() });

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** HTTP Basic (RFC 7617): `Authorization: Basic base64(user:password)`, UTF-8, checked by your `verify`. */
export function httpBasicScheme(options: HttpBasicSchemeOptions): A2aSecurityScheme {
  checkOptions(HTTP_BASIC_SCHEME_OPTIONS, options, 'httpBasicScheme', InvalidSecurityConfigError);
  return {
    declaration: {
      httpAuthSecurityScheme: { scheme: 'Basic', ...(options.description ? { description: options.description } : {}) },
    },
    async authenticate(source): Promise<SchemeOutcome> {
      const header = source.header('authorization');
      if (header === undefined) return { status: 'absent' };
      const space = header.indexOf(' ');
      if (space < 0 || header.slice(0, space).toLowerCase() !== 'basic') return { status: 'absent' };
      const pair = decodeBasic(header.slice(space + 1).trim());
      if (pair === undefined) return { status: 'invalid', reason: 'malformed Basic credentials' };
      const grant = await options.verify(pair.user, pair.password);
      return grant ? { status: 'granted', grant } : { status: 'invalid', reason: 'wrong user or password' };
    },
    challenge: () => `Basic realm="${A2A_REALM}", charset="UTF-8"`,
  };
}

/** Strict: canonical base64, valid UTF-8, a colon; the user is what precedes the first colon. */
function decodeBasic(encoded: string): { user: string; password: string } | undefined {
  if (
    encoded.length === 0 ||
    encoded.length > DEFAULT_MAX_CREDENTIAL_BYTES ||
    encoded.length % 4 !== 0 ||
    !BASE64.test(encoded)
  )
    return undefined;
  let text: string;
  try {
    text = UTF8.decode(Buffer.from(encoded, 'base64'));
  } catch {
    return undefined;
  }
  const colon = text.indexOf(':');
  return colon < 0 ? undefined : { user: text.slice(0, colon), password: text.slice(colon + 1) };
}
