import type { A2aSecurityScheme, SchemeOutcome } from '../a2a-security-scheme.js';
import {
  bearerChallenge,
  maxTokenBytesOf,
  readBearerCredential,
  type BearerCredentialOptions,
} from './bearer-credential.js';
import { arrayOf, checkOptions, integer, object, text } from '../../a2a-options.rules.js';
import { InvalidSecurityConfigError } from '../../errors/security-config.error.js';
import {
  checkedClaimsOptions,
  JWT_CLAIMS_RULES,
  jwtVerifier,
  notAnAccessToken,
  type JwtClaimsOptions,
  type JwtVerifier,
} from './jwt-verification.js';
import { identityProviderUrl } from './identity-provider.url.js';
import { openIdDiscovery } from './openid-discovery.js';
import { tokenScopes } from './token-scopes.js';

/** Options of `openIdConnectScheme`: the identity provider whose discovery document gives the issuer and keys, and the claims checked. */
export interface OpenIdConnectSchemeOptions extends JwtClaimsOptions, BearerCredentialOptions {
  /** The provider's discovery document (`…/.well-known/openid-configuration`), also published in the card. */
  openIdConnectUrl: string;
  /** The provider's issuer: the discovery document must name exactly this one. Default: whatever it names. */
  issuer?: string;
  /** The card's description of the scheme. */
  description?: string;
  /** Hosts whose discovery document and JWKS may be fetched over plain http (e.g. `['127.0.0.1']` in tests). */
  allowInsecureHttp?: readonly string[];
}

const OPENID_CONNECT_SCHEME_OPTIONS = object({
  ...JWT_CLAIMS_RULES,
  openIdConnectUrl: text(),
  issuer: text(),
  description: text(),
  allowInsecureHttp: arrayOf(text()),
  maxTokenBytes: integer(1),
});

/**
 * Bearer JWTs from an OpenID provider found through its discovery document: fetched on the first token, kept 24 hours;
 * the token's `iss` must be the document's `issuer`, its keys come from the document's `jwks_uri`. Only access tokens
 * pass: an ID token (`typ` neither `at+jwt` nor `JWT`, or a `nonce`, `at_hash` or `c_hash` claim without
 * `typ: at+jwt`) is refused even when `audience` is the client id its provider minted it for (RFC 9068 §4).
 */
export function openIdConnectScheme(options: OpenIdConnectSchemeOptions): A2aSecurityScheme {
  const maxTokenBytes = maxTokenBytesOf(options);
  const discoveryUrl = identityProviderUrl(options.openIdConnectUrl, 'openIdConnectUrl', options.allowInsecureHttp);
  // Checked now so a bad option fails at boot, not at the first token.
  checkedClaimsOptions(options, false);
  checkOptions(OPENID_CONNECT_SCHEME_OPTIONS, options, 'openIdConnectScheme', InvalidSecurityConfigError);
  const clock = options.currentDate ?? (() => new Date());
  const discover = openIdDiscovery(discoveryUrl, options.issuer, options.allowInsecureHttp, clock);
  // Rebuilt only when a refreshed document names another issuer or JWKS, so the JWKS cache survives refreshes.
  let current: { issuer: string; jwksUri: string; verify: JwtVerifier } | undefined;

  return {
    declaration: {
      openIdConnectSecurityScheme: {
        openIdConnectUrl: options.openIdConnectUrl,
        ...(options.description === undefined ? {} : { description: options.description }),
      },
    },
    async authenticate(source): Promise<SchemeOutcome> {
      const credential = readBearerCredential(source, maxTokenBytes);
      if (credential.status !== 'present') return credential;
      const discovery = await discover();
      if (discovery.status !== 'ready') return discovery;
      if (current?.issuer !== discovery.issuer || current.jwksUri !== discovery.jwksUri.href) {
        const verify = jwtVerifier({ ...options, issuer: discovery.issuer, jwksUrl: discovery.jwksUri });
        current = { issuer: discovery.issuer, jwksUri: discovery.jwksUri.href, verify };
      }
      const verdict = await current.verify(credential.token);
      if (verdict.status !== 'verified') return verdict;
      const idToken = notAnAccessToken(credential.token, verdict.payload);
      if (idToken) return { status: 'invalid', reason: idToken };
      const { sub, iss, aud, azp } = verdict.payload;
      if (typeof sub !== 'string' || sub === '') return { status: 'invalid', reason: 'missing_subject' };
      // OIDC Core §3.1.3.7: with several audiences, `azp` says which client the token was issued to.
      if (Array.isArray(aud) && aud.length > 1 && typeof azp !== 'string')
        return { status: 'invalid', reason: 'missing_azp' };
      return {
        status: 'granted',
        grant: { subject: sub, issuer: iss, scopes: tokenScopes(verdict.payload), claims: verdict.payload },
      };
    },
    challenge: bearerChallenge,
  };
}
