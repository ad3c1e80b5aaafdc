/**
 * The parts of Express 5's router (`router` 2.x, as `express` ^5.3.0 in package.json brings it) the direct dispatcher
 * reads. None is documented API, so every read is guarded: anything unexpected makes the dispatcher leave requests to
 * Express.
 */

export interface ExpressRoute {
  path: unknown;
  methods: Record<string, boolean | undefined>;
}

export interface ExpressLayer {
  route?: ExpressRoute;
  /** Middleware `(req, res, next)`, an error handler `(error, req, res, next)`, or a route's own dispatch. */
  handle: ((...args: unknown[]) => unknown) & { name: string };
  /** router 2.3: the match, or false; older 2.x: a boolean, with the values left on `params`. */
  match(path: string): false | true | { params: Record<string, string | undefined> };
  params?: Record<string, string | undefined>;
}

export interface ExpressApp {
  (req: unknown, res: unknown): void;
  router?: { stack?: unknown; params?: unknown };
  get(setting: string): unknown;
  enabled(setting: string): boolean;
  /** The prototypes Express gives requests and responses (`app.request`, `app.response`). */
  request: unknown;
  response: unknown;
}

export function stackOf(app: ExpressApp): ExpressLayer[] | undefined {
  const stack = app.router?.stack;
  if (!Array.isArray(stack)) return undefined;
  const wellFormed = stack.every((layer) => typeof layer?.match === 'function' && typeof layer?.handle === 'function');
  return wellFormed ? (stack as ExpressLayer[]) : undefined;
}

/** Error-handling middleware: skipped by Express unless an error is pending. */
export function isErrorHandler(layer: ExpressLayer): boolean {
  return !layer.route && layer.handle.length > 3;
}

/** The path values of a matching layer, or undefined when it does not match. Throws on undecodable values, as Express. */
export function matchLayer(layer: ExpressLayer, path: string): Record<string, string | undefined> | undefined {
  const match = layer.match(path);
  if (!match) return undefined;
  return match === true ? { ...layer.params } : match.params;
}

export function routeHandles(route: ExpressRoute, method: string): boolean {
  return route.methods._all === true || route.methods[method.toLowerCase()] === true;
}
