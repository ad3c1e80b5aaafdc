import { A2aMessages } from '../../a2a.messages.js';
import { InvalidSecurityConfigError } from '../../errors/security-config.error.js';
import { A2A_REALM } from '../a2a-security-scheme.js';
import type { CredentialSource } from '../credential-source.js';
import { DEFAULT_MAX_CREDENTIAL_BYTES } from './credential-limits.js';

export interface BearerCredentialOptions {
  /**
   * Longest accepted token, in bytes (default 8192). Longer ones are invalid before any parsing: jose would decode a
   * token of hundreds of KB.
   */
  maxTokenBytes?: number;
}

/** What the `Authorization` header holds for a Bearer scheme. */
export type BearerCredential =
  | { readonly status: 'absent' }
  | { readonly status: 'invalid'; readonly reason: string }
  | { readonly status: 'present'; readonly token: string };

/** RFC 6750 b64token (token68). */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Checks `maxTokenBytes` at construction, so a typo fails at boot rather than refusing every token. */
export function maxTokenBytesOf(options: BearerCredentialOptions): number {
  const value = options.maxTokenBytes ?? DEFAULT_MAX_CREDENTIAL_BYTES;
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new InvalidSecurityConfigError(A2aMessages.maxTokenBytes(value));
  return value;
}

/**
 * Reads `Authorization: Bearer <token>` (scheme name case-insensitive). Another scheme's credential (Basic, say) is
 * `absent` for us; a repeated header is absent too, since the source gives only single values.
 */
export function readBearerCredential(source: CredentialSource, maxTokenBytes: number): BearerCredential {
  const header = source.header('authorization');
  if (header === undefined) return { status: 'absent' };
  const space = header.indexOf(' ');
  const scheme = space < 0 ? header : header.slice(0, space);
  if (scheme.toLowerCase() !== 'bearer') return { status: 'absent' };
  const token = header.slice(space + 1).replace(/^ +/, '');
  // Header values are Latin-1 on HTTP/1 and ASCII on HTTP/2, so the length counts bytes; checked before the pattern.
  if (token.length > maxTokenBytes) return { status: 'invalid', reason: 'token_too_large' };
  if (space < 0 || !TOKEN68.test(token)) return { status: 'invalid', reason: 'malformed_bearer_credential' };
  return { status: 'present', token };
}

/** RFC 6750 §3: the realm, and `invalid_token` when the caller sent a bad one. */
export function bearerChallenge(invalid: boolean): string {
  return invalid ? `Bearer realm="${A2A_REALM}", error="invalid_token"` : `Bearer realm="${A2A_REALM}"`;
}
