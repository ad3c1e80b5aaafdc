import { A2aMessages } from '../../a2a.messages.js';

/**
 * Parses an identity provider URL (JWKS, discovery) and refuses plain http, whose answers anyone on the path could
 * forge: keys included. `allowInsecureHttp` names hosts exempted (a loopback IdP in tests). Throws with a message for
 * the operator, so call it where a bad URL is a configuration error.
 */
export function identityProviderUrl(value: string | URL, what: string, allowInsecureHttp: readonly string[] = []): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(A2aMessages.invalidIdentityProviderUrl(what, String(value)));
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol !== 'http:') throw new Error(A2aMessages.invalidIdentityProviderUrl(what, url.href));
  if (!allowInsecureHttp.includes(url.hostname)) throw new Error(A2aMessages.insecureIdentityProviderUrl(what, url.href));
  return url;
}
