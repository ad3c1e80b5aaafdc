import { createPublicKey, KeyObject } from 'node:crypto';
import {
  createLocalJWKSet,
  decodeProtectedHeader,
  createRemoteJWKSet,
  customFetch,
  errors,
  jwtVerify,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { A2aMessages } from '../../a2a.messages.js';
import {
  anyOf,
  arrayOf,
  atLeast,
  fn,
  instance,
  required,
  secret,
  text,
  type OptionRule,
} from '../../a2a-options.rules.js';
import { InvalidSecurityConfigError } from '../../errors/security-config.error.js';
import { fetchIdentityProviderJson, IdentityProviderUnavailableError } from './identity-provider.fetch.js';
import { VerifiedTokenCache } from './verified-token.cache.js';
import { identityProviderUrl } from './identity-provider.url.js';

/** The claim checks of a JWT, shared by every token scheme. */
export interface JwtClaimsOptions {
  /** The `aud` values this agent accepts; a token must name at least one. Required: a token for another API must fail. */
  audience: string | readonly string[];
  /**
   * Accepted `alg` values. Default `RS256 PS256 ES256 EdDSA`, or `HS256` with a `secret`. Never `none`; HMAC only with a
   * secret, since with public keys the public key itself could serve as the HMAC secret.
   */
  algorithms?: readonly string[];
  /** Claims that must be present. Default `exp` and `sub`. */
  requiredClaims?: readonly string[];
  /** Allowed clock skew for `exp`, `nbf` and `iat`, in seconds: default 30, at most 60. */
  clockToleranceSeconds?: number;
  /** Expected `typ` header, e.g. `at+jwt` for RFC 9068 access tokens. Not checked by default. */
  typ?: string;
  /** Oldest accepted `iat`, as seconds or a jose time span (`'1h'`). Not checked by default. */
  maxTokenAge?: number | string;
  /** The clock tokens are checked against. Default: the system clock. For tests. */
  currentDate?: () => Date;
}

/** Where a JWT's keys come from: exactly one of `jwksUrl`, `jwks`, `publicKey` or `secret`. */
export interface JwtKeySourceOptions {
  /** The IdP's JWKS, fetched when needed and cached 10 minutes; a token with an unknown `kid` refetches it (rotation). */
  jwksUrl?: string | URL;
  /** A fixed JWKS, or its list of keys. */
  jwks?: JSONWebKeySet | readonly JWK[];
  /** One public key, as PEM (SPKI or a certificate) or a KeyObject. */
  publicKey?: string | KeyObject;
  /** A shared HMAC secret (at least 32 bytes): enables HS256/HS384/HS512, and only those. */
  secret?: string | Uint8Array;
  /** Hosts whose JWKS may be fetched over plain http (e.g. `['127.0.0.1']` in tests). Default: none, https only. */
  allowInsecureHttp?: readonly string[];
}

/** How a JWT access token is verified: its issuer, plus the claims and key source options. */
export interface JwtVerificationOptions extends JwtClaimsOptions, JwtKeySourceOptions {
  /** The exact `iss` of accepted tokens. */
  issuer: string;
}

/**
 * The JWT options' rules, one per option, for the schemes' tables: unknown keys and types. The finer checks (issuer and
 * audience present, algorithms, key sources, secret length) are jwtVerifier's and checkedClaimsOptions'.
 */
export const JWT_CLAIMS_RULES: Readonly<Record<keyof JwtClaimsOptions, OptionRule>> = {
  audience: required(anyOf(text(), arrayOf(text()))),
  algorithms: arrayOf(text()),
  requiredClaims: arrayOf(text()),
  clockToleranceSeconds: atLeast(0, 'a number from 0 to 60'),
  typ: text(),
  maxTokenAge: anyOf(atLeast(0, 'a number of seconds'), text()),
  currentDate: fn(),
};

export const JWT_VERIFICATION_RULES: Readonly<Record<keyof JwtVerificationOptions, OptionRule>> = {
  ...JWT_CLAIMS_RULES,
  issuer: required(text()),
  jwksUrl: anyOf(text(), instance('a URL', [], ['href'])),
  jwks: instance('a JWK Set or a list of JWKs', []),
  publicKey: anyOf(text(), instance('a KeyObject', ['export'])),
  secret: secret({ bytes: true }),
  allowInsecureHttp: arrayOf(text()),
};

/** A JWT's fate: verified (signature and claims), invalid (reason for logs), or not checkable now (IdP unreachable). */
export type JwtVerdict =
  | { readonly status: 'verified'; readonly payload: JWTPayload }
  | { readonly status: 'invalid'; readonly reason: string }
  | { readonly status: 'unavailable'; readonly reason: string };

export type JwtVerifier = (token: string) => Promise<JwtVerdict>;

const ASYMMETRIC_DEFAULT = ['RS256', 'PS256', 'ES256', 'EdDSA'];
const HMAC_DEFAULT = ['HS256'];
const HMAC = new Set(['HS256', 'HS384', 'HS512']);
const MIN_SECRET_BYTES = 32;
const MAX_CLOCK_TOLERANCE_SECONDS = 60;
/** jose codes meaning the JWKS could not be fetched or used: the IdP's fault, not the token's. */
const IDP_FAILURES = new Set(['ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID', 'ERR_JOSE_GENERIC']);

/**
 * Builds the jose check of one scheme, validating its options now (an Error names the bad option). The returned
 * function never throws: every failure is a verdict.
 */
export function jwtVerifier(options: JwtVerificationOptions): JwtVerifier {
  if (!options.issuer) throw new InvalidSecurityConfigError(A2aMessages.jwtClaimsRequired());
  const key = keySource(options);
  const { audience, algorithms, requiredClaims, clockTolerance } = checkedClaimsOptions(
    options,
    options.secret !== undefined,
  );

  // maxTokenAge depends on when it is asked: such tokens are checked every time.
  const cache = options.maxTokenAge === undefined ? new VerifiedTokenCache(clockTolerance) : undefined;
  return async (token) => {
    const currentDate = options.currentDate?.();
    const now = (currentDate ?? new Date()).getTime();
    const cached = cache?.get(token, now);
    if (cached) return { status: 'verified', payload: cached };
    try {
      const { payload } = await jwtVerify(token, key, {
        issuer: options.issuer,
        audience,
        algorithms,
        requiredClaims,
        clockTolerance,
        typ: options.typ,
        maxTokenAge: options.maxTokenAge,
        currentDate,
      });
      cache?.set(token, payload, now);
      return { status: 'verified', payload };
    } catch (error) {
      return verdictOf(error);
    }
  };
}

/** `typ` values that declare an access token (RFC 9068 §2.1), compared without case. */
const ACCESS_TOKEN_TYPES = new Set(['at+jwt', 'application/at+jwt']);
/** Claims only an OpenID Connect ID token carries (OIDC Core §2, §3.1.3.6, §3.3.2.11). */
const ID_TOKEN_CLAIMS = ['nonce', 'at_hash', 'c_hash'] as const;

/**
 * Why a verified JWT is not an access token, if it is not: an OpenID Connect ID token minted for a client whose id
 * is also the API's audience must not pass as one (RFC 9068 §4, OIDC Core §3.1.3.7). A `typ` of `at+jwt` declares an
 * access token; any other `typ` but the generic `JWT` (most IdPs' access tokens, and their ID tokens too) is refused;
 * a `JWT` or untyped token is refused when it carries a claim only ID tokens have: `nonce`, `at_hash` or `c_hash`.
 */
export function notAnAccessToken(token: string, payload: JWTPayload): string | undefined {
  const header: unknown = decodeProtectedHeader(token).typ;
  const typ = typeof header === 'string' ? header.toLowerCase() : header === undefined ? undefined : String(header);
  if (typ !== undefined && ACCESS_TOKEN_TYPES.has(typ)) return undefined;
  if (typ !== undefined && typ !== 'jwt') return `not_an_access_token:typ=${typ}`;
  const claim = ID_TOKEN_CLAIMS.find((name) => payload[name] !== undefined);
  return claim === undefined ? undefined : `not_an_access_token:${claim}`;
}

/** Validates the claim options (throws for the operator) and fills in the defaults. */
export function checkedClaimsOptions(options: JwtClaimsOptions, withSecret: boolean) {
  const audience = typeof options.audience === 'string' ? [options.audience] : [...(options.audience ?? [])];
  if (audience.length === 0 || audience.some((entry) => !entry))
    throw new InvalidSecurityConfigError(A2aMessages.jwtClaimsRequired());
  const clockTolerance = options.clockToleranceSeconds ?? 30;
  if (!(clockTolerance >= 0 && clockTolerance <= MAX_CLOCK_TOLERANCE_SECONDS)) {
    throw new InvalidSecurityConfigError(A2aMessages.jwtClockTolerance(options.clockToleranceSeconds));
  }
  const algorithms = checkedAlgorithms(
    options.algorithms ?? (withSecret ? HMAC_DEFAULT : ASYMMETRIC_DEFAULT),
    withSecret,
  );
  return { audience, algorithms, requiredClaims: [...(options.requiredClaims ?? ['exp', 'sub'])], clockTolerance };
}

function keySource(options: JwtKeySourceOptions): KeyObject | Uint8Array | JWTVerifyGetKey {
  const given = [options.jwksUrl, options.jwks, options.publicKey, options.secret].filter(
    (source) => source !== undefined,
  );
  if (given.length !== 1) throw new InvalidSecurityConfigError(A2aMessages.jwtKeySources(given.length));
  if (options.jwksUrl !== undefined)
    return remoteJwks(identityProviderUrl(options.jwksUrl, 'jwksUrl', options.allowInsecureHttp));
  if (options.jwks !== undefined) {
    const jwks = isKeyList(options.jwks) ? { keys: [...options.jwks] } : options.jwks;
    return createLocalJWKSet(jwks);
  }
  if (options.publicKey !== undefined) {
    if (options.publicKey instanceof KeyObject) {
      if (options.publicKey.type === 'public') return options.publicKey;
      if (options.publicKey.type === 'secret')
        throw new InvalidSecurityConfigError(A2aMessages.jwtNotPublicKey(options.publicKey.type));
    }
    // A private key or a certificate yields its public key; no private material is kept.
    return createPublicKey(options.publicKey);
  }
  const secret = typeof options.secret === 'string' ? new TextEncoder().encode(options.secret) : options.secret!;
  if (secret.byteLength < MIN_SECRET_BYTES)
    throw new InvalidSecurityConfigError(A2aMessages.jwtWeakSecret(secret.byteLength));
  return secret;
}

/** A remote JWKS fetched through our capped fetch: 64 KiB, no redirects, every failure "unavailable". */
function remoteJwks(url: URL): JWTVerifyGetKey {
  return createRemoteJWKSet(url, {
    timeoutDuration: 5_000,
    cooldownDuration: 30_000,
    cacheMaxAge: 600_000,
    [customFetch]: async (href, init) => Response.json(await fetchIdentityProviderJson(href, init.signal)),
  });
}

function checkedAlgorithms(algorithms: readonly string[], withSecret: boolean): string[] {
  if (algorithms.length === 0) throw new InvalidSecurityConfigError(A2aMessages.jwtNoAlgorithms());
  for (const alg of algorithms) {
    if (alg.toLowerCase() === 'none') throw new InvalidSecurityConfigError(A2aMessages.jwtAlgorithmNone());
    if (withSecret && !HMAC.has(alg)) throw new InvalidSecurityConfigError(A2aMessages.jwtSecretNeedsHmac(alg));
    if (!withSecret && alg.toUpperCase().startsWith('HS'))
      throw new InvalidSecurityConfigError(A2aMessages.jwtHmacWithPublicKey(alg));
  }
  return [...algorithms];
}

function isKeyList(jwks: JSONWebKeySet | readonly JWK[]): jwks is readonly JWK[] {
  return Array.isArray(jwks);
}

function verdictOf(error: unknown): JwtVerdict {
  if (error instanceof IdentityProviderUnavailableError) return { status: 'unavailable', reason: error.message };
  if (error instanceof errors.JOSEError) {
    if (IDP_FAILURES.has(error.code)) return { status: 'unavailable', reason: error.code };
    // The claim name tells operators which check failed (aud, iss, nbf); the caller only ever sees invalid_token.
    const claim =
      error instanceof errors.JWTClaimValidationFailed || error instanceof errors.JWTExpired ? `:${error.claim}` : '';
    return { status: 'invalid', reason: `${error.code}${claim}` };
  }
  // jose reports a key that does not fit the algorithm with a TypeError: the token's doing, not the IdP's.
  return { status: 'invalid', reason: error instanceof Error ? error.name : 'unknown' };
}
