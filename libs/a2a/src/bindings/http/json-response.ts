import type { ServerResponse } from 'node:http';
import { flushPendingHeaders } from './pending-headers.js';

/**
 * Writes a whole JSON answer, with the headers Express's `res.type(mediaType).send(text)` would set (node adds the
 * Content-Length), but without the ETag it would hash the body for: API answers are not cached by validators.
 */
export function sendJson(res: ServerResponse, status: number, mediaType: string, text: string): void {
  flushPendingHeaders(res);
  res.statusCode = status;
  res.setHeader('Content-Type', `${mediaType}; charset=utf-8`);
  res.end(text);
}

/** Sets the headers an error must carry (`WWW-Authenticate`, `Retry-After`) before it is written. */
export function setErrorHeaders(
  res: ServerResponse,
  headers: Readonly<Record<string, string | readonly string[]>>,
): void {
  for (const name in headers) res.setHeader(name, headers[name] as string | string[]);
}

/** An answer that depends on who asked (the extended card): no shared cache may keep it. */
export function markPrivate(res: ServerResponse): void {
  res.setHeader('Cache-Control', 'private, no-store');
}
