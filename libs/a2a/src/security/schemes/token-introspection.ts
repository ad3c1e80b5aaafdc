import { createHash } from 'node:crypto';
import type { SchemeOutcome } from '../a2a-security-scheme.js';
import { tokenScopes } from './token-scopes.js';

/** The members of an RFC 7662 introspection response that the scheme reads. */
export interface TokenIntrospection {
  /** Whether the authorization server considers the token valid now; anything but `true` is invalid. */
  active: boolean;
  sub?: string;
  client_id?: string;
  /** Space-separated scopes. */
  scope?: string;
  /** Expiry, in seconds since the epoch. */
  exp?: number;
  iss?: string;
  aud?: string | string[];
}

/**
 * Asks the authorization server about an opaque token (RFC 7662). It answers for this agent: when the server issues
 * tokens for several resources, check `aud` here. Throwing means "could not ask" and answers 503, not 401.
 */
export type TokenIntrospector = (token: string) => Promise<TokenIntrospection>;

/** Answers are reused at most this long, so a revoked token stops working within a minute. */
const MAX_CACHE_MS = 60_000;
/** Bounds the memory a flood of distinct tokens can take; the oldest entry goes first. */
const MAX_CACHE_ENTRIES = 10_000;
const CLOCK_TOLERANCE_MS = 30_000;

/**
 * Checks opaque tokens with an introspection hook and caches its verdicts (granted and inactive alike) for at most
 * min(exp, 60 s). Keys are SHA-256 digests, so the cache holds no usable token.
 */
export function introspectionChecker(
  introspect: TokenIntrospector,
  clock: () => Date,
): (token: string) => Promise<SchemeOutcome> {
  const cache = new Map<string, { outcome: SchemeOutcome; until: number }>();
  return async (token) => {
    const now = clock().getTime();
    const key = createHash('sha256').update(token).digest('base64url');
    const cached = cache.get(key);
    if (cached && cached.until > now) return cached.outcome;
    cache.delete(key);

    let answer: TokenIntrospection;
    try {
      answer = await introspect(token);
    } catch (error) {
      // Not cached: the next call asks again.
      return {
        status: 'unavailable',
        reason: `introspect() threw: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    const { outcome, until } = verdictOf(answer, now);
    if (cache.size >= MAX_CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    if (until > now) cache.set(key, { outcome, until });
    return outcome;
  };
}

/** The subject of a token that names a client only: `client:<id>`, never equal to a user's `sub`. */
export function clientSubject(clientId: string): string {
  return `client:${clientId}`;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function verdictOf(answer: TokenIntrospection, now: number): { outcome: SchemeOutcome; until: number } {
  const fresh = now + MAX_CACHE_MS;
  if (answer?.active !== true) return { outcome: { status: 'invalid', reason: 'token_inactive' }, until: fresh };
  const expiresAt = typeof answer.exp === 'number' ? answer.exp * 1000 : Infinity;
  if (expiresAt + CLOCK_TOLERANCE_MS <= now)
    return { outcome: { status: 'invalid', reason: 'token_expired' }, until: fresh };
  const client = nonEmpty(answer.client_id);
  const subject = nonEmpty(answer.sub) ?? (client === undefined ? undefined : clientSubject(client));
  if (subject === undefined) return { outcome: { status: 'invalid', reason: 'missing_subject' }, until: fresh };
  const grant = { subject, issuer: answer.iss, scopes: tokenScopes({ scope: answer.scope }), claims: { ...answer } };
  return { outcome: { status: 'granted', grant }, until: Math.min(fresh, expiresAt) };
}
