/**
 * Contract of the direct HTTP path, a fast path beside Express's:
 * - Every request it serves is answered byte-equal to Express 5 and Nest's router serving it (status, headers, body,
 *   SSE frames), through the same endpoints and the same Nest pipeline (A2aHttpPipeline runs the app's guards,
 *   interceptors, pipes and filters on either path).
 * - It reads Express internals that are not documented API: the router's `stack` of Layers (`route` with its `path`
 *   and `methods`, `handle` with its `name` and `length`, `match()`, and `params` of router < 2.3), `router.params`,
 *   the `query parser fn` and `x-powered-by` settings, `app.request`/`app.response`; the middleware names
 *   `jsonParser`, `urlencodedParser`, `textParser`, `rawParser` (body-parser 2) and `corsMiddleware` (cors 2); Nest's
 *   Express adapter's `onRequestHook`/`onResponseHook` and the source of its hook layer. Pinned for that: `express`
 *   ^5.3.0 (router 2.x) and `@nestjs/platform-express` ^12.5.1 in package.json (the library's peer range: ^12.0.0).
 * - It falls back to Express for the whole app when `directDispatch` is false, the adapter is not Express, Express is
 *   not the server's one request listener, or the inspection at the first request finds anything it does not know
 *   (hooks, route parameter handlers, an unknown router, an A2A route missing or doubled, another error handler
 *   first); and request by request for any method, target or path it does not resolve to an A2A route with nothing
 *   but the body parsers and CORS before it, or whose path values do not decode.
 * - Equality is held by test/e2e/bindings/direct-dispatch.e2e-spec.ts (the same requests on both paths) and
 *   test/e2e/bindings/http-body-refusals.e2e-spec.ts (every refusal on both paths); test/e2e/module/extensions.e2e-spec.ts
 *   and test/e2e/interop/sdk-v03-rest.e2e-spec.ts check the path they run on is this one.
 */
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { A2aModuleExtras, A2aModuleOptions } from '../../../a2a-module.options.js';
import { A2A_MODULE_EXTRAS, A2A_MODULE_OPTIONS } from '../../../a2a-module-definition.js';
import { SkillRegistry } from '../../../skills/skill.registry.js';
import { A2aHttpRoutes } from '../http-routes.js';
import type { HttpRoute } from '../http-route.js';
import type { HttpRequest } from '../http-request.js';
import { isJsonMediaType } from '../json-media-type.js';
import { PreRoutingErrorHandler } from '../pre-routing-error.handler.js';
import {
  isErrorHandler,
  matchLayer,
  routeHandles,
  stackOf,
  type ExpressApp,
  type ExpressLayer,
} from './express-stack.js';
import { attachExpressViews } from './express-views.js';

type PathValues = Record<string, string | undefined>;
type Operation = HttpRoute;

/** What the dispatcher learned from the app once, and uses for every request. */
interface Plan {
  /** Express's live stack: layers added later are seen, and (being unknown) send their requests to Express. */
  stack: ExpressLayer[];
  /** The route layers of the A2A routes. */
  operations: Map<ExpressLayer, Operation>;
  /** Middleware that runs before the A2A routes in Express too and that the dispatcher runs itself: body parsers, CORS. */
  parsers: Set<ExpressLayer>;
  /** Layers that do nothing for these requests (the adapter's hook layer while no hook is set). */
  inert: Set<ExpressLayer>;
  queryParser: ((query: string | null) => Record<string, unknown>) | undefined;
  poweredBy: boolean;
  /**
   * Whether the app's guards, interceptors, pipes or filters (the skills' guards included) get Express views of the
   * request and response (`req.get()`, `req.ip`, `res.status()`): when there are any. Without them, nothing but the
   * bindings reads either.
   */
  expressViews: boolean;
}

interface Resolved {
  operation: Operation;
  values: PathValues;
  parsers: ExpressLayer[];
  query: string | null;
}

/**
 * Middleware the dispatcher runs itself, in Express's order: Nest's body parsers (express.json() & co.) and the `cors`
 * middleware of `app.enableCors()`. Each reads and writes only node's request and response, so it acts the same
 * without Express around it (the differential suite pins that).
 */
const RUNNABLE_MIDDLEWARE: ReadonlySet<string> = new Set([
  'jsonParser',
  'urlencodedParser',
  'textParser',
  'rawParser',
  'corsMiddleware',
]);
/** Of those, the ones that read the body. */
const BODY_PARSERS: ReadonlySet<string> = new Set(['jsonParser', 'urlencodedParser', 'textParser', 'rawParser']);
const NO_PARSERS: ExpressLayer[] = [];

/**
 * Serves the A2A HTTP routes straight from node's `request` event when Express would only route them: Express's
 * per-request setup costs more CPU than the whole A2A call, and the prototypes it swaps on every request and response
 * make V8 promote short-lived objects, which leaves the old generation fragmented under load (docs/performance.md).
 * The Nest pipeline still runs: the endpoints run the app's guards and interceptors themselves (A2aHttpPipeline),
 * whichever path the request took.
 *
 * It serves a request only when Express would route it to an A2A route with nothing else running before it but the
 * body parsers and CORS (which it runs itself, so the body limits, media types and CORS headers stay the app's): no
 * adapter hook, no other middleware matching the path, no other route claiming it first. Anything else, including
 * anything it does not recognize, goes to Express unchanged, to the same endpoints. `directDispatch: false` turns it
 * off. Which path the app takes, and why, is logged once, at the first request.
 */
@Injectable()
export class DirectHttpDispatcher implements OnApplicationBootstrap {
  private readonly logger = new Logger('A2aHttp');
  private plan: Plan | undefined;
  private express: ExpressApp | undefined;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly config: ApplicationConfig,
    private readonly preRouting: PreRoutingErrorHandler,
    @Inject(A2A_MODULE_OPTIONS) private readonly options: A2aModuleOptions,
    @Inject(A2A_MODULE_EXTRAS) private readonly extras: Pick<A2aModuleExtras, 'guards' | 'interceptors' | 'filters'>,
    private readonly routes: A2aHttpRoutes,
    private readonly skills: SkillRegistry,
  ) {}

  /** Whether requests are served directly; decided at the first request, once the app is fully configured. */
  get active(): boolean {
    return this.plan !== undefined;
  }

  onApplicationBootstrap(): void {
    if (this.options.directDispatch === false) return;
    const adapter = this.adapterHost.httpAdapter;
    if (adapter?.getType() !== 'express') return;
    const server = adapter.getHttpServer() as Server | undefined;
    const express = adapter.getInstance() as ExpressApp;
    // Only the plain setup, where Express is the server's one request listener, can be put behind the dispatcher.
    const listeners = server?.listeners('request');
    if (!server || listeners?.length !== 1 || listeners[0] !== express) return;
    this.express = express;
    let decided = false;
    server.removeListener('request', express);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (!decided) {
        decided = true;
        this.decide();
      }
      if (!this.plan || !this.serve(this.plan, req as HttpRequest, res)) express(req, res);
    });
  }

  /** Inspects the app once everything is registered (the first request comes after `listen()`). */
  private decide(): void {
    const plan = this.inspect(this.express!);
    if (typeof plan === 'string') {
      this.logger.log(`A2A requests go through Express, then the Nest pipeline: ${plan}`);
      return;
    }
    this.plan = plan;
    this.logger.log(
      'A2A requests are served from node’s request event, then the Nest pipeline: no middleware of the app applies to them',
    );
  }

  /** The plan, or why requests must go through Express. */
  private inspect(express: ExpressApp): Plan | string {
    const config = this.config;
    const adapter = this.adapterHost.httpAdapter as unknown as { onRequestHook?: unknown; onResponseHook?: unknown };
    if (adapter.onRequestHook || adapter.onResponseHook) return 'the HTTP adapter has request or response hooks';
    const routerParams = express.router?.params;
    if (routerParams && typeof routerParams === 'object' && Object.keys(routerParams).length > 0)
      return 'the app has route parameter handlers';
    const stack = stackOf(express);
    if (!stack) return 'the Express router is not one this module knows';

    const operations = this.operationsIn(stack);
    if (typeof operations === 'string') return operations;
    const parsers = new Set(stack.filter((layer) => !layer.route && RUNNABLE_MIDDLEWARE.has(layer.handle.name)));
    const inert = new Set(stack.filter((layer, index) => index === 0 && isAdapterHookLayer(layer)));
    // A body parser's error goes to the first error handler after it: it must be the module's, whose answer the
    // dispatcher gives itself.
    const lastParser = Math.max(-1, ...[...parsers].map((layer) => stack.indexOf(layer)));
    const firstErrorHandler = stack.find((layer, index) => index > lastParser && isErrorHandler(layer));
    if (firstErrorHandler && firstErrorHandler.handle !== this.preRouting.middleware)
      return 'another error handler precedes the module’s';
    if (stack.some((layer, index) => index < lastParser && isErrorHandler(layer)))
      return 'an error handler comes before the body parsers';
    const queryParser = express.get('query parser fn');
    const enhancers =
      config.getGlobalGuards().length +
      config.getGlobalRequestGuards().length +
      config.getGlobalInterceptors().length +
      config.getGlobalRequestInterceptors().length +
      config.getGlobalPipes().length +
      config.getGlobalRequestPipes().length +
      (this.extras.guards?.length ?? 0) +
      (this.extras.interceptors?.length ?? 0) +
      (this.extras.filters?.length ?? 0) +
      (this.skills.anyGuarded ? 1 : 0);
    return {
      stack,
      operations,
      parsers,
      inert,
      queryParser: typeof queryParser === 'function' ? (queryParser as Plan['queryParser']) : undefined,
      poweredBy: express.enabled('x-powered-by'),
      expressViews: enhancers > 0,
    };
  }

  /** The route layer of every A2A route, found by the path it was registered under. */
  private operationsIn(stack: ExpressLayer[]): Map<ExpressLayer, Operation> | string {
    const routes = this.routes.routes();
    const wanted = new Map(routes.map((route) => [`${route.method} ${route.path}`, route]));
    const found = new Map<ExpressLayer, Operation>();
    const seen = new Set<string>();
    for (const layer of stack) {
      if (!layer.route || typeof layer.route.path !== 'string') continue;
      for (const method of Object.keys(layer.route.methods)) {
        const key = `${method.toUpperCase()} ${layer.route.path}`;
        const operation = wanted.get(key);
        if (!operation) continue;
        if (seen.has(key)) return `two routes are registered as ${key}`;
        seen.add(key);
        if (Object.keys(layer.route.methods).length !== 1) return `the route ${key} serves other methods too`;
        found.set(layer, operation);
      }
    }
    if (found.size !== routes.length) return `${routes.length - found.size} A2A routes were not found where expected`;
    return found;
  }

  /** Serves the request if Express would route it to an A2A route with nothing else in between. */
  private serve(plan: Plan, req: HttpRequest, res: ServerResponse): boolean {
    let resolved: Resolved | undefined;
    try {
      resolved = resolve(plan, req);
    } catch {
      // A path value that does not decode: Express answers that.
      return false;
    }
    if (!resolved) return false;
    const { operation, values, parsers, query } = resolved;
    if (plan.poweredBy) res.setHeader('X-Powered-By', 'Express');
    req.query = plan.queryParser ? plan.queryParser(query) : {};
    if (plan.expressViews) attachExpressViews(this.express!, req, res, values);
    // A POST the binding refuses by its Content-Type (readJsonBody) is refused before any parser reads its body.
    const refused = req.method === 'POST' && parsers.length > 0 && !isJsonMediaType(req.headers['content-type']);
    runParsers(
      refused ? parsers.filter((layer) => !BODY_PARSERS.has(layer.handle.name)) : parsers,
      req,
      res,
      (error) => {
        if (error) return this.preRouting.answer(error, operation.binding, req, res);
        operation.serve(req, res, values);
      },
    );
    return true;
  }
}

/** Walks Express's stack as its router would, up to the route that takes the request. */
function resolve(plan: Plan, req: HttpRequest): Resolved | undefined {
  const method = req.method;
  if (method !== 'GET' && method !== 'POST' && method !== 'DELETE') return undefined;
  const url = req.url;
  // Origin-form targets only; anything unusual is for Express to read.
  if (url === undefined || url.charCodeAt(0) !== 0x2f || url.includes('#')) return undefined;
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  let parsers: ExpressLayer[] | undefined;
  for (const layer of plan.stack) {
    if (isErrorHandler(layer)) continue;
    const values = matchLayer(layer, path);
    if (!values) continue;
    if (!layer.route) {
      if (plan.inert.has(layer)) continue;
      if (!plan.parsers.has(layer)) return undefined;
      (parsers ??= []).push(layer);
      continue;
    }
    if (!routeHandles(layer.route, method)) continue;
    const operation = plan.operations.get(layer);
    return (
      operation && {
        operation,
        values,
        parsers: parsers ?? NO_PARSERS,
        query: queryAt < 0 ? null : url.slice(queryAt + 1),
      }
    );
  }
  return undefined;
}

/** Runs the body parsers as Express would: in order, each calling `next` (with an error, which ends the chain). */
function runParsers(
  parsers: ExpressLayer[],
  req: IncomingMessage,
  res: ServerResponse,
  done: (error?: unknown) => void,
): void {
  let index = 0;
  const next = (error?: unknown): void => {
    if (error) return done(error);
    const layer = parsers[index++];
    if (!layer) return done();
    try {
      layer.handle(req, res, next);
    } catch (thrown) {
      done(thrown);
    }
  };
  next();
}

/** The first layer Nest's Express adapter installs, which runs its request and response hooks when there are some. */
function isAdapterHookLayer(layer: ExpressLayer): boolean {
  if (layer.route) return false;
  const source = Function.prototype.toString.call(layer.handle);
  return source.includes('onRequestHook') && source.includes('onResponseHook');
}
