import { A2aMessages } from '../../a2a.messages.js';
import { InvalidSecurityConfigError } from '../../errors/security-config.error.js';

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
    throw new InvalidSecurityConfigError(A2aMessages.invalidIdentityProviderUrl(what, String(value)));
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol !== 'http:')
    throw new InvalidSecurityConfigError(A2aMessages.invalidIdentityProviderUrl(what, url.href));
  if (!allowInsecureHttp.includes(url.hostname))
    throw new InvalidSecurityConfigError(A2aMessages.insecureIdentityProviderUrl(what, url.href));
  return url;
}
