import type { IncomingMessage } from 'node:http';
import type { SecurityScheme } from '../protocol/a2a.types.js';

/**
 * The cookie in which the page's login field keeps a credential: a browser sends no header of its own choosing when it
 * loads a page, so the page's files accept the credential from here, as the header it names. The page's calls to the
 * operations send the header itself; the operations never read this cookie.
 */
export const INSPECTOR_CREDENTIAL_COOKIE = 'a2a-inspector-credential';

/** The headers the card's schemes read a credential from: an API key's header, `authorization` for the others. */
export function credentialHeaders(schemes: Readonly<Record<string, SecurityScheme>>): ReadonlySet<string> {
  const headers = new Set<string>();
  for (const scheme of Object.values(schemes)) {
    const apiKey = scheme.apiKeySecurityScheme;
    if (apiKey?.location === 'header') headers.add(apiKey.name.toLowerCase());
    else if (scheme.httpAuthSecurityScheme || scheme.oauth2SecurityScheme || scheme.openIdConnectSecurityScheme)
      headers.add('authorization');
  }
  return headers;
}

/**
 * Sets the header the credential cookie names (`{"header":…,"value":…}`, URI-encoded) on `req` when that header is
 * one of `allowed` and the request does not send it already; anything else in the cookie is ignored.
 */
export function applyCredentialCookie(req: IncomingMessage, allowed: ReadonlySet<string>): void {
  const raw = cookieValue(req.headers.cookie, INSPECTOR_CREDENTIAL_COOKIE);
  if (raw === undefined || allowed.size === 0) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(decodeURIComponent(raw));
  } catch {
    return;
  }
  if (typeof parsed !== 'object' || parsed === null) return;
  const { header, value } = parsed as { header?: unknown; value?: unknown };
  if (typeof header !== 'string' || typeof value !== 'string' || value === '') return;
  const name = header.toLowerCase();
  if (allowed.has(name) && req.headers[name] === undefined) req.headers[name] = value;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const pair of header?.split(';') ?? []) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
  }
  return undefined;
}
