import type { A2aSecurityScheme, SchemeOutcome } from '../a2a-security-scheme.js';
import {
  bearerChallenge,
  maxTokenBytesOf,
  readBearerCredential,
  type BearerCredentialOptions,
} from './bearer-credential.js';
import { checkOptions, integer, object, text } from '../../a2a-options.rules.js';
import { InvalidSecurityConfigError } from '../../errors/security-config.error.js';
import { JWT_VERIFICATION_RULES, jwtVerifier, type JwtVerificationOptions } from './jwt-verification.js';
import { tokenScopes } from './token-scopes.js';

/** Options of `bearerJwtScheme`: the JWT's issuer, audience and keys, and where the bearer token is read. */
export interface BearerJwtSchemeOptions extends JwtVerificationOptions, BearerCredentialOptions {
  /** The card's description of the scheme. */
  description?: string;
}

const BEARER_JWT_SCHEME_OPTIONS = object({ ...JWT_VERIFICATION_RULES, description: text(), maxTokenBytes: integer(1) });

/**
 * `Authorization: Bearer <JWT>` checked locally with jose: signature against the configured keys, exact issuer,
 * audience, expiry with bounded skew. The subject is `sub`, the scopes `scope` ∪ `scp`.
 */
export function bearerJwtScheme(options: BearerJwtSchemeOptions): A2aSecurityScheme {
  const maxTokenBytes = maxTokenBytesOf(options);
  const verify = jwtVerifier(options);
  checkOptions(BEARER_JWT_SCHEME_OPTIONS, options, 'bearerJwtScheme', InvalidSecurityConfigError);
  return {
    declaration: {
      httpAuthSecurityScheme: {
        scheme: 'Bearer',
        bearerFormat: 'JWT',
        ...(options.description === undefined ? {} : { description: options.description }),
      },
    },
    async authenticate(source): Promise<SchemeOutcome> {
      const credential = readBearerCredential(source, maxTokenBytes);
      if (credential.status !== 'present') return credential;
      const verdict = await verify(credential.token);
      if (verdict.status !== 'verified') return verdict;
      const { sub, iss } = verdict.payload;
      // requiredClaims may have been narrowed, but the principal needs a subject.
      if (typeof sub !== 'string' || sub === '') return { status: 'invalid', reason: 'missing_subject' };
      return {
        status: 'granted',
        grant: { subject: sub, issuer: iss, scopes: tokenScopes(verdict.payload), claims: verdict.payload },
      };
    },
    challenge: bearerChallenge,
  };
}
