import type { ServerResponse } from 'node:http';

const PENDING = Symbol('nestjs-a2a.pendingHeaders');

type WithPending = ServerResponse & { [PENDING]?: () => Readonly<Record<string, unknown>> };

/**
 * Headers set elsewhere than on node's response, to be sent with the bindings' answer: those of a Fastify reply the
 * bindings hijacked (its CORS hook's, a guard's `reply.header()`), which Fastify itself no longer sends.
 */
export function setPendingHeaders(res: ServerResponse, source: () => Readonly<Record<string, unknown>>): void {
  (res as WithPending)[PENDING] = source;
}

/** Copies the pending headers onto `res` before its head is written; what the binding set itself wins. */
export function flushPendingHeaders(res: ServerResponse): void {
  const source = (res as WithPending)[PENDING];
  if (!source) return;
  for (const [name, value] of Object.entries(source())) {
    if (value !== undefined && !res.hasHeader(name)) res.setHeader(name, value as string | number | readonly string[]);
  }
}
