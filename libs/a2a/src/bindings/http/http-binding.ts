import type { Type } from '@nestjs/common';
import type { A2aBindingPlugin } from '../binding-plugin.js';
import type { HttpRoute } from './http-route.js';

/** The routes one binding serves on the app's HTTP server, given the app's global prefix. */
export interface HttpBindingRoutes {
  routes(globalPrefix: string): HttpRoute[];
}

/**
 * A binding served on the app's HTTP server (JSON-RPC, HTTP+JSON): a plugin like the gRPC one, whose `routes`
 * provider A2aHttpRoutes registers, with the card's, on Express or Fastify and hands to the direct dispatcher.
 */
export interface HttpBindingPlugin extends A2aBindingPlugin {
  readonly routes: Type<HttpBindingRoutes>;
}

/** The HTTP bindings' route providers, in the order their routes are registered. */
export const A2A_HTTP_BINDING_ROUTES = Symbol('A2A_HTTP_BINDING_ROUTES');

/** Segments joined by single slashes, with a leading one and no trailing one (`/` alone for the root). */
export function joinPath(...parts: string[]): string {
  const joined = `/${parts.join('/')}`.replace(/\/+/g, '/');
  return joined.length > 1 ? joined.replace(/\/$/, '') : joined;
}
