import { fetchIdentityProviderJson, IdentityProviderUnavailableError } from './identity-provider.fetch.js';
import { identityProviderUrl } from './identity-provider.url.js';

/** What the scheme needs from an OpenID provider's discovery document. */
export type OpenIdDiscovery =
  | { readonly status: 'ready'; readonly issuer: string; readonly jwksUri: URL }
  | { readonly status: 'unavailable'; readonly reason: string };

const CACHE_MS = 24 * 60 * 60 * 1000;

/**
 * Fetches the discovery document on first use and keeps a usable one for 24 hours. A failed or unusable fetch is not
 * kept: the next call tries again, one fetch at a time. A document whose `issuer` differs from the expected one must
 * not be used (OIDC Discovery §4.3), nor one whose `jwks_uri` is not https (or allowlisted): both are "unavailable",
 * since the caller's token may be fine and only the provider's answer is not.
 */
export function openIdDiscovery(
  url: URL,
  expectedIssuer: string | undefined,
  allowInsecureHttp: readonly string[] | undefined,
  clock: () => Date,
): () => Promise<OpenIdDiscovery> {
  let cached: { discovery: OpenIdDiscovery; until: number } | undefined;
  let pending: Promise<OpenIdDiscovery> | undefined;

  const load = async (): Promise<OpenIdDiscovery> => {
    let document: unknown;
    try {
      document = await fetchIdentityProviderJson(url);
    } catch (error) {
      return {
        status: 'unavailable',
        reason: error instanceof IdentityProviderUnavailableError ? error.message : String(error),
      };
    }
    const { issuer, jwks_uri: jwksUri } = (document ?? {}) as Record<string, unknown>;
    if (typeof issuer !== 'string' || issuer === '' || typeof jwksUri !== 'string') {
      return { status: 'unavailable', reason: `discovery document ${url.href} lacks issuer or jwks_uri` };
    }
    if (expectedIssuer !== undefined && issuer !== expectedIssuer) {
      return {
        status: 'unavailable',
        reason: `discovery document ${url.href} names issuer ${issuer}, not ${expectedIssuer}`,
      };
    }
    try {
      return { status: 'ready', issuer, jwksUri: identityProviderUrl(jwksUri, 'jwks_uri', allowInsecureHttp) };
    } catch (error) {
      return { status: 'unavailable', reason: (error as Error).message };
    }
  };

  return async () => {
    if (cached && cached.until > clock().getTime()) return cached.discovery;
    pending ??= load().finally(() => (pending = undefined));
    const discovery = await pending;
    if (discovery.status === 'ready') cached = { discovery, until: clock().getTime() + CACHE_MS };
    return discovery;
  };
}
