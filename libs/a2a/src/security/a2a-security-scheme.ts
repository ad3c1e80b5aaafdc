import type { SecurityScheme } from '../protocol/a2a.types.js';
import type { CredentialSource } from './credential-source.js';

/** What one scheme learned from a valid credential. */
export interface SchemeGrant {
  /** Who the credential names: an API key's owner, a user name, a token's `sub`, a certificate's subject. */
  readonly subject: string;
  /** Who vouches for the subject (a token's `iss`); part of the principal's id, since two issuers may share subjects. */
  readonly issuer?: string;
  /** Scopes (OAuth2 / JWT `scope`, `scp`) or roles the credential grants; compared with requirements' lists. */
  readonly scopes: readonly string[];
  /** Verified claims, e.g. a JWT's payload; passed on to the principal. */
  readonly claims?: Readonly<Record<string, unknown>>;
}

/**
 * A scheme's verdict on one call: no credential of its kind, a valid one, an invalid one (always 401, even if another
 * alternative would pass), or "could not tell" because the identity provider is unreachable
 * (503, never a pass and never a 401 that would make clients drop a good token).
 */
export type SchemeOutcome =
  | { readonly status: 'absent' }
  | { readonly status: 'granted'; readonly grant: SchemeGrant }
  | { readonly status: 'invalid'; /** For logs only: never sent to the caller. */ readonly reason: string }
  /** A valid credential whose subject this agent refuses (e.g. a certificate outside the allowed subjects): 403. */
  | { readonly status: 'forbidden'; readonly reason: string }
  | { readonly status: 'unavailable'; readonly reason: string };

/**
 * One entry of the card's `securitySchemes` together with the code that checks its credentials. Built by
 * `apiKeyScheme()`, `httpBasicScheme()`, `bearerJwtScheme()`, `oauth2Scheme()`, `openIdConnectScheme()`,
 * `mtlsScheme()` or `bearerTokenScheme()`; implement it to plug in any other verifier (a Passport strategy, say).
 */
export interface A2aSecurityScheme {
  /** The card's declaration (exactly one member of SecurityScheme set). */
  readonly declaration: SecurityScheme;
  /** Reads this scheme's credential from the call, if any, and checks it. Must not throw for bad input. */
  authenticate(source: CredentialSource): Promise<SchemeOutcome> | SchemeOutcome;
  /**
   * The `WWW-Authenticate` challenge for a 401 (e.g. `Bearer realm="a2a"`); `invalid` when the caller sent a bad
   * credential of this scheme. None for schemes answered at the TLS layer (mTLS).
   */
  challenge?(invalid: boolean): string | undefined;
}

export const A2A_REALM = 'a2a';
