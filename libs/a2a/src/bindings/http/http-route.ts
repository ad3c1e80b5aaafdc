import type { ServerResponse } from 'node:http';
import type { RestPathValues } from '../rest/rest.routes.js';
import type { HttpRequest } from './http-request.js';

/** One route of the HTTP bindings as registered: method, full path (global prefix included), what serves it. */
export interface HttpRoute {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** In Express 5 (path-to-regexp v8) syntax, as registered. */
  readonly path: string;
  readonly binding: 'jsonrpc' | 'rest';
  serve(req: HttpRequest, res: ServerResponse, values: RestPathValues): void;
}
