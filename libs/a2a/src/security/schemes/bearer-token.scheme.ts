import type { A2aSecurityScheme, SchemeGrant, SchemeOutcome } from '../a2a-security-scheme.js';
import { checkOptions, fn, integer, object, required, text } from '../../a2a-options.rules.js';
import { InvalidSecurityConfigError } from '../../errors/security-config.error.js';
import {
  bearerChallenge,
  maxTokenBytesOf,
  readBearerCredential,
  type BearerCredentialOptions,
} from './bearer-credential.js';

/** Options of `bearerTokenScheme`: how an opaque bearer token is checked and mapped to a principal. */
export interface BearerTokenSchemeOptions extends BearerCredentialOptions {
  /**
   * Checks an opaque token: its grant, or undefined when the token is not valid. Throwing means "could not check now"
   * (a token service down) and answers 503, not 401.
   */
  verify(token: string): Promise<SchemeGrant | undefined>;
  /** The card's description of the scheme. */
  description?: string;
}

const BEARER_TOKEN_SCHEME_OPTIONS = object({ verify: required(fn()), description: text(), maxTokenBytes: integer(1) });

/** `Authorization: Bearer <token>` for opaque tokens, checked by the application's own verifier. */
export function bearerTokenScheme(options: BearerTokenSchemeOptions): A2aSecurityScheme {
  const maxTokenBytes = maxTokenBytesOf(options);
  checkOptions(BEARER_TOKEN_SCHEME_OPTIONS, options, 'bearerTokenScheme', InvalidSecurityConfigError);
  return {
    declaration: {
      httpAuthSecurityScheme: {
        scheme: 'Bearer',
        ...(options.description === undefined ? {} : { description: options.description }),
      },
    },
    async authenticate(source): Promise<SchemeOutcome> {
      const credential = readBearerCredential(source, maxTokenBytes);
      if (credential.status !== 'present') return credential;
      let grant: SchemeGrant | undefined;
      try {
        grant = await options.verify(credential.token);
      } catch (error) {
        return {
          status: 'unavailable',
          reason: `verify() threw: ${error instanceof Error ? error.message : String(error)}`,
        };
      }
      return grant ? { status: 'granted', grant } : { status: 'invalid', reason: 'token_rejected_by_verifier' };
    },
    challenge: bearerChallenge,
  };
}
