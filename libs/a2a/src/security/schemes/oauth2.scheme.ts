import { decodeProtectedHeader, type JWTPayload } from 'jose';
import { A2aMessages } from '../../a2a.messages.js';
import { bool, checkOptions, fn, httpUrl, instance, integer, object, required, text } from '../../a2a-options.rules.js';
import { InvalidSecurityConfigError } from '../../errors/security-config.error.js';
import type { OAuthFlows } from '../../protocol/a2a.types.js';
import type { A2aSecurityScheme, SchemeOutcome } from '../a2a-security-scheme.js';
import {
  bearerChallenge,
  maxTokenBytesOf,
  readBearerCredential,
  type BearerCredentialOptions,
} from './bearer-credential.js';
import {
  JWT_VERIFICATION_RULES,
  jwtVerifier,
  notAnAccessToken,
  type JwtVerificationOptions,
} from './jwt-verification.js';
import { clientSubject, introspectionChecker, type TokenIntrospector } from './token-introspection.js';
import { tokenScopes } from './token-scopes.js';

/** Options of `oauth2Scheme`: the flows the card advertises and how access tokens are checked (as JWTs or by introspection). */
export interface OAuth2SchemeOptions extends BearerCredentialOptions {
  /** The card's flows: where clients get tokens. */
  flows: OAuthFlows;
  /** The card's RFC 8414 metadata URL, for clients. */
  oauth2MetadataUrl?: string;
  /** The card's description of the scheme. */
  description?: string;
  /**
   * Checks JWT access tokens (RFC 9068) locally. `requiredClaims` defaults to `exp` alone here: client-credentials
   * tokens may lack `sub`, and then `client_id` or `azp` names the owner. Set `typ: 'at+jwt'` if the server sends it.
   */
  jwt?: JwtVerificationOptions;
  /** Checks opaque tokens at the authorization server (RFC 7662); with `jwt` too, only tokens that are not JWTs. */
  introspect?: TokenIntrospector;
  /** The clock of the introspection cache (and of `jwt` unless it has its own). For tests. */
  currentDate?: () => Date;
}

const scopes = required(instance('an object of scope descriptions by scope', []));

// The flows and the metadata URL are published in the card: clients elsewhere must be able to use them as they are.
const OAUTH2_SCHEME_OPTIONS = object({
  flows: required(
    object({
      authorizationCode: object({
        authorizationUrl: required(httpUrl()),
        tokenUrl: required(httpUrl()),
        refreshUrl: httpUrl(),
        scopes,
        pkceRequired: bool(),
      }),
      clientCredentials: object({ tokenUrl: required(httpUrl()), refreshUrl: httpUrl(), scopes }),
      deviceCode: object({
        deviceAuthorizationUrl: required(httpUrl()),
        tokenUrl: required(httpUrl()),
        refreshUrl: httpUrl(),
        scopes,
      }),
      implicit: object({ authorizationUrl: required(httpUrl()), refreshUrl: httpUrl(), scopes }),
      password: object({ tokenUrl: required(httpUrl()), refreshUrl: httpUrl(), scopes }),
    }),
  ),
  oauth2MetadataUrl: httpUrl(),
  description: text(),
  jwt: object(JWT_VERIFICATION_RULES),
  introspect: fn(),
  currentDate: fn(),
  maxTokenBytes: integer(1),
});

/**
 * OAuth 2.0 access tokens, whatever the flow: JWTs checked with jose, opaque tokens through introspection. The owner
 * is the token's `sub`, or for a client-credentials token without one `client:<client_id>` (else `client:<azp>`), so
 * a client never owns the tasks of a user whose `sub` equals its id. A JWT that is an OpenID Connect ID token
 * (`typ` neither `at+jwt` nor `JWT`, or a `nonce`, `at_hash` or `c_hash` claim without `typ: at+jwt`) is refused:
 * ID tokens identify a user to a client, they grant no access (RFC 9068 §4).
 */
export function oauth2Scheme(options: OAuth2SchemeOptions): A2aSecurityScheme {
  if (!options.jwt && !options.introspect) throw new InvalidSecurityConfigError(A2aMessages.oauth2WithoutVerifier());
  const maxTokenBytes = maxTokenBytesOf(options);
  const clock = options.currentDate ?? (() => new Date());
  const verifyJwt = options.jwt
    ? jwtVerifier({
        ...options.jwt,
        requiredClaims: options.jwt.requiredClaims ?? ['exp'],
        currentDate: options.jwt.currentDate ?? clock,
      })
    : undefined;
  const introspect = options.introspect ? introspectionChecker(options.introspect, clock) : undefined;
  // After the verifiers' own checks, whose messages say more about their options.
  checkOptions(OAUTH2_SCHEME_OPTIONS, options, 'oauth2Scheme', InvalidSecurityConfigError);

  return {
    declaration: {
      oauth2SecurityScheme: {
        flows: options.flows,
        ...(options.oauth2MetadataUrl === undefined ? {} : { oauth2MetadataUrl: options.oauth2MetadataUrl }),
        ...(options.description === undefined ? {} : { description: options.description }),
      },
    },
    async authenticate(source): Promise<SchemeOutcome> {
      const credential = readBearerCredential(source, maxTokenBytes);
      if (credential.status !== 'present') return credential;
      if (!verifyJwt || (introspect && !looksLikeJwt(credential.token))) return introspect!(credential.token);
      const verdict = await verifyJwt(credential.token);
      if (verdict.status !== 'verified') return verdict;
      const idToken = notAnAccessToken(credential.token, verdict.payload);
      if (idToken) return { status: 'invalid', reason: idToken };
      const subject = ownerOf(verdict.payload);
      if (subject === undefined) return { status: 'invalid', reason: 'missing_subject' };
      return {
        status: 'granted',
        grant: { subject, issuer: verdict.payload.iss, scopes: tokenScopes(verdict.payload), claims: verdict.payload },
      };
    },
    challenge: bearerChallenge,
  };
}

/**
 * RFC 9068 puts the client in `sub` for client credentials; some servers leave it out and name `client_id` or `azp`,
 * which are client ids, not user ids: `client:` keeps them apart.
 */
function ownerOf(payload: JWTPayload): string | undefined {
  if (typeof payload.sub === 'string' && payload.sub !== '') return payload.sub;
  const client = [payload['client_id'], payload['azp']].find(
    (value): value is string => typeof value === 'string' && value !== '',
  );
  return client === undefined ? undefined : clientSubject(client);
}

function looksLikeJwt(token: string): boolean {
  try {
    return typeof decodeProtectedHeader(token).alg === 'string' && token.split('.').length === 3;
  } catch {
    return false;
  }
}
