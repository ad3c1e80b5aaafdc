import { A2A_JSON_MEDIA_TYPE } from '../../a2a.constants.js';

const JSON_MEDIA_TYPE = 'application/json';

/**
 * Whether a request's `Content-Type` is one of the two media types the HTTP bindings take bodies in (§9.1, §11.1):
 * `application/json` or `application/a2a+json`, in any case, with any parameters (`; charset=utf-8`).
 *
 * Every POST to the bindings must say so, with a body or without: a browser sends a cross-site POST without asking
 * the server first (no CORS preflight) only as `text/plain`, `application/x-www-form-urlencoded` or
 * `multipart/form-data`, or with no Content-Type at all. Refusing those is what keeps a hostile page from driving an
 * agent with the credentials the browser adds by itself (cookies, cached Basic, client certificates, an agent on
 * localhost or an intranet). Decided by the header alone, never by what a body parser made of the body.
 */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === JSON_MEDIA_TYPE || contentType === A2A_JSON_MEDIA_TYPE) return true;
  if (contentType === undefined) return false;
  const end = contentType.indexOf(';');
  const mediaType = (end < 0 ? contentType : contentType.slice(0, end)).trim().toLowerCase();
  return mediaType === JSON_MEDIA_TYPE || mediaType === A2A_JSON_MEDIA_TYPE;
}
