import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { A2A_REALM, type A2aSecurityScheme, type SchemeGrant, type SchemeOutcome } from '../a2a-security-scheme.js';
import type { CredentialSource } from '../credential-source.js';
import { A2aMessages } from '../../a2a.messages.js';
import { checkOptions, fn, integer, object, oneOf, required, secretsByName, text } from '../../a2a-options.rules.js';
import { InvalidSecurityConfigError } from '../../errors/security-config.error.js';
import { DEFAULT_MAX_CREDENTIAL_BYTES } from './credential-limits.js';

/** Options of `apiKeyScheme`: where the key is sent and how a key maps to a principal. */
export interface ApiKeySchemeOptions {
  /** Where the key travels (on gRPC it is always read from the metadata entry `name`, lowercased). */
  in: 'header' | 'query' | 'cookie';
  /** Header, query parameter or cookie name, e.g. `X-API-Key`. */
  name: string;
  /**
   * The accepted keys, by the subject each one authenticates (`{ alice: 'key-a' }`). Only their HMACs are kept, and
   * every check compares with all of them in constant time.
   */
  keys?: Readonly<Record<string, string>>;
  /** Or: your own lookup, e.g. in a database (compare in constant time there too). */
  verify?: (key: string) => SchemeGrant | undefined | Promise<SchemeGrant | undefined>;
  description?: string;
  /** Longest key accepted, in bytes. Default 8192. */
  maxKeyBytes?: number;
}

const API_KEY_SCHEME_OPTIONS = object({
  in: required(oneOf('header', 'query', 'cookie')),
  name: required(text()),
  keys: secretsByName({ distinct: true }),
  verify: fn(),
  description: text(),
  maxKeyBytes: integer(1),
});

/**
 * An API key in a header, query parameter or cookie, checked against fixed keys or by your lookup.
 *
 * @throws InvalidSecurityConfigError at once for options that cannot work: a location other than header, query or
 * cookie, a key that is empty or the string "undefined" (an unset environment variable), one key for two subjects.
 */
export function apiKeyScheme(options: ApiKeySchemeOptions): A2aSecurityScheme {
  checkOptions(API_KEY_SCHEME_OPTIONS, options, 'apiKeyScheme', InvalidSecurityConfigError);
  const lookup = options.verify ?? (options.keys ? fixedKeys(options.keys) : undefined);
  if (!lookup) throw new InvalidSecurityConfigError(A2aMessages.apiKeyWithoutKeys());
  const maxBytes = options.maxKeyBytes ?? DEFAULT_MAX_CREDENTIAL_BYTES;
  const headerName = options.name.toLowerCase();
  const read = (source: CredentialSource): string | undefined => {
    if (source.grpc || options.in === 'header') return source.header(headerName);
    return options.in === 'query' ? source.query(options.name) : source.cookie(options.name);
  };
  return {
    declaration: {
      apiKeySecurityScheme: {
        location: options.in,
        name: options.name,
        ...(options.description ? { description: options.description } : {}),
      },
    },
    // Synchronous with fixed keys, so the guard answers without a promise round.
    authenticate(source): SchemeOutcome | Promise<SchemeOutcome> {
      const key = read(source);
      if (key === undefined) return { status: 'absent' };
      if (key.length === 0 || Buffer.byteLength(key) > maxBytes)
        return { status: 'invalid', reason: 'malformed API key' };
      const grant = lookup(key);
      return grant instanceof Promise ? grant.then(outcomeOf) : outcomeOf(grant);
    },
    challenge: () => `ApiKey realm="${A2A_REALM}", in="${options.in}", name="${options.name}"`,
  };
}

function outcomeOf(grant: SchemeGrant | undefined): SchemeOutcome {
  return grant ? { status: 'granted', grant } : { status: 'invalid', reason: 'unknown API key' };
}

/**
 * Fixed keys, kept only as SHA-256 digests under a per-process pepper: every lookup hashes the candidate once and
 * compares it with every stored digest (same length, no early exit), so timing says nothing about which key, or how
 * much of one, matched. (One-shot `hash()`: an HMAC object per call cost more than the rest of the check.)
 */
function fixedKeys(keys: Readonly<Record<string, string>>): (key: string) => SchemeGrant | undefined {
  const pepper = randomBytes(32).toString('hex');
  const digest = (value: string) => hash('sha256', `${pepper}${value}`, 'buffer');
  const entries = Object.entries(keys).map(([subject, key]) => ({ subject, digest: digest(key) }));
  return (key) => {
    const candidate = digest(key);
    let match: string | undefined;
    for (const entry of entries) if (timingSafeEqual(candidate, entry.digest)) match ??= entry.subject;
    return match === undefined ? undefined : { subject: match, scopes: [] };
  };
}
