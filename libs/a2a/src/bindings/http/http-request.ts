import type { IncomingMessage } from 'node:http';

/**
 * What the HTTP bindings read of a request: node's own, plus what the stack in front of them adds (`query` and `body`,
 * from Express and Nest's body parsers, or from the direct dispatcher). Nothing Express-only, so the routes
 * and the direct dispatcher share every line of the bindings.
 */
export type HttpRequest = IncomingMessage & { query?: Record<string, unknown>; body?: unknown };
