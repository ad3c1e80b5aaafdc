import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { A2A_JSON_MEDIA_TYPE } from '../../a2a.constants.js';
import { A2A_MODULE_OPTIONS } from '../../a2a-module-definition.js';
import type { A2aModuleOptions } from '../../a2a-module.options.js';
import { A2A_BINDING_MOUNTS, type BindingMounts } from '../binding-mounts.js';
import { answerJsonRpcFailure } from '../jsonrpc/jsonrpc-exception.filter.js';
import { JsonRpcEndpoint } from '../jsonrpc/jsonrpc.endpoint.js';
import { sendRestError } from '../rest/rest-exception.filter.js';
import { RestEndpoint, type RestPathFields } from '../rest/rest.endpoint.js';
import { REST_ROUTES, TENANT_SEGMENT } from '../rest/rest.routes.js';
import { isErrorHandler, matchLayer, routeHandles, stackOf, type ExpressApp, type ExpressLayer } from './express-stack.js';
import type { HttpRequest } from './http-request.js';
import { sendJson } from './json-response.js';
import { PreRoutingErrorHandler } from './pre-routing-error.handler.js';

type PathValues = Record<string, string | undefined>;

/** One A2A route as the dispatcher serves it: what Nest's controller method would do, from the same endpoint code. */
interface Operation {
  binding: 'jsonrpc' | 'rest';
  serve(req: HttpRequest, res: ServerResponse, values: PathValues): void;
}

/** What the dispatcher learned from the app once, and uses for every request. */
interface Plan {
  /** Express's live stack: layers added later are seen, and (being unknown) send their requests to Express. */
  stack: ExpressLayer[];
  /** The route layers of the A2A controllers. */
  operations: Map<ExpressLayer, Operation>;
  /** Nest's body parsers, which run before the A2A routes in Express too. */
  parsers: Set<ExpressLayer>;
  /** Layers that do nothing for these requests (the adapter's hook layer while no hook is set). */
  inert: Set<ExpressLayer>;
  queryParser: ((query: string | null) => Record<string, unknown>) | undefined;
  poweredBy: boolean;
}

interface Resolved {
  operation: Operation;
  values: PathValues;
  parsers: ExpressLayer[];
  query: string | null;
}

/** Nest registers these body-parser middlewares (express.json() & co.); they read only node's request. */
const PARSER_NAMES: ReadonlySet<string> = new Set(['jsonParser', 'urlencodedParser', 'textParser', 'rawParser']);
const NO_PARSERS: ExpressLayer[] = [];
/** Express settings that would change how Nest serializes a returned response. */
const JSON_SETTINGS = ['json replacer', 'json spaces', 'json escape'];

/**
 * Serves the A2A HTTP routes straight from node's `request` event, when nothing in the app would run on them but the
 * bindings themselves: Express's per-request setup and Nest's pipeline then cost more CPU than the whole A2A call, and
 * the prototypes Express swaps on every request and response make V8 promote short-lived objects, which leaves the old
 * generation fragmented under load (docs/benchmarks.md has the measurements).
 *
 * It serves a request only when Express would route it to an A2A controller with nothing else running before it but
 * Nest's body parsers (which it runs itself, so the body limits and media types stay the app's): no global guard,
 * interceptor, pipe or pre-request hook, no adapter hook, no other middleware matching the path, no other route
 * claiming it first. Anything else, including anything it does not recognize, goes to Express unchanged, so the answer
 * is the one the Nest pipeline gives (minus Express's ETag on JSON answers). `directDispatch: false` turns it off.
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
    @Inject(A2A_BINDING_MOUNTS) private readonly mounts: BindingMounts,
    private readonly jsonRpc: JsonRpcEndpoint,
    private readonly rest: RestEndpoint,
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
      this.logger.debug(`A2A requests go through Express and the Nest pipeline: ${plan}`);
      return;
    }
    this.plan = plan;
    this.logger.debug('A2A requests are served directly: nothing in the app applies to them');
  }

  /** The plan, or why requests must go through Express. */
  private inspect(express: ExpressApp): Plan | string {
    const config = this.config;
    const enhancers = [
      ['global guards', config.getGlobalGuards().length + config.getGlobalRequestGuards().length],
      ['global interceptors', config.getGlobalInterceptors().length + config.getGlobalRequestInterceptors().length],
      ['global pipes', config.getGlobalPipes().length + config.getGlobalRequestPipes().length],
      ['pre-request hooks', config.getGlobalPreRequestHooks?.().length ?? 0],
    ] as const;
    const present = enhancers.filter(([, count]) => count > 0).map(([name]) => name);
    if (present.length > 0) return `the app has ${present.join(', ')}`;
    if (config.getVersioning()) return 'the app uses versioning';
    const adapter = this.adapterHost.httpAdapter as unknown as { onRequestHook?: unknown; onResponseHook?: unknown };
    if (adapter.onRequestHook || adapter.onResponseHook) return 'the HTTP adapter has request or response hooks';
    if (JSON_SETTINGS.some((setting) => express.get(setting) !== undefined)) return 'Express JSON settings are customized';
    const routerParams = express.router?.params;
    if (routerParams && typeof routerParams === 'object' && Object.keys(routerParams).length > 0) return 'the app has route parameter handlers';
    const stack = stackOf(express);
    if (!stack) return 'the Express router is not one this module knows';

    const operations = this.operationsIn(stack);
    if (typeof operations === 'string') return operations;
    const parsers = new Set(stack.filter((layer) => !layer.route && PARSER_NAMES.has(layer.handle.name)));
    const inert = new Set(stack.filter((layer, index) => index === 0 && isAdapterHookLayer(layer)));
    // A body parser's error goes to the first error handler after it: it must be the module's, whose answer the
    // dispatcher gives itself.
    const lastParser = Math.max(-1, ...[...parsers].map((layer) => stack.indexOf(layer)));
    const firstErrorHandler = stack.find((layer, index) => index > lastParser && isErrorHandler(layer));
    if (firstErrorHandler && firstErrorHandler.handle !== this.preRouting.middleware) return 'another error handler precedes the module’s';
    if (stack.some((layer, index) => index < lastParser && isErrorHandler(layer))) return 'an error handler comes before the body parsers';
    const queryParser = express.get('query parser fn');
    return {
      stack,
      operations,
      parsers,
      inert,
      queryParser: typeof queryParser === 'function' ? (queryParser as Plan['queryParser']) : undefined,
      poweredBy: express.enabled('x-powered-by'),
    };
  }

  /** The route layer of every A2A operation, found by the path Nest registered it under. */
  private operationsIn(stack: ExpressLayer[]): Map<ExpressLayer, Operation> | string {
    const wanted = new Map<string, Operation>();
    const prefixes = ['', this.config.getGlobalPrefix()];
    for (const prefix of new Set(prefixes)) {
      for (const [method, path, operation] of this.routes()) wanted.set(`${method} ${joinPath(prefix, path)}`, operation);
    }
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
    const expected = this.routes().length;
    if (found.size !== expected) return `${expected - found.size} A2A routes were not found where expected`;
    return found;
  }

  /** Every A2A route as [method, path below the global prefix, operation]; the REST ones also below `/{tenant}`. */
  private routes(): Array<[string, string, Operation]> {
    const routes: Array<[string, string, Operation]> = [];
    const { jsonRpc, rest } = this;
    if (this.mounts.jsonRpc !== undefined) {
      routes.push([
        'POST',
        this.mounts.jsonRpc,
        { binding: 'jsonrpc', serve: (req, res) => void jsonRpc.serve(req, res).catch((error: unknown) => answerJsonRpcFailure(req, res, error)) },
      ]);
    }
    if (this.mounts.rest !== undefined) {
      for (const base of [this.mounts.rest, `${this.mounts.rest}/${TENANT_SEGMENT}`]) {
        for (const [method, route, serve] of restOperations(rest)) routes.push([method, `${base}/${route}`, { binding: 'rest', serve }]);
      }
    }
    return routes;
  }

  /** Serves the request if Express would route it to an A2A controller with nothing else in between. */
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
    runParsers(parsers, req, res, (error) => {
      if (error) return this.preRouting.answer(error, operation.binding, res);
      operation.serve(req, res, values);
    });
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
    return operation && { operation, values, parsers: parsers ?? NO_PARSERS, query: queryAt < 0 ? null : url.slice(queryAt + 1) };
  }
  return undefined;
}

/** Runs the body parsers as Express would: in order, each calling `next` (with an error, which stops the chain). */
function runParsers(parsers: ExpressLayer[], req: IncomingMessage, res: ServerResponse, done: (error?: unknown) => void): void {
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

type RestServe = Operation['serve'];

/** The HTTP+JSON routes and what the controller method of each does, answering as Nest answers a returned value. */
function restOperations(rest: RestEndpoint): Array<[string, string, RestServe]> {
  const path = (values: PathValues): RestPathFields => ({ id: values.id, tenant: values.tenant });
  const pathNoId = (values: PathValues): RestPathFields => ({ tenant: values.tenant });
  const json =
    (run: (req: HttpRequest, values: PathValues) => Promise<unknown>): RestServe =>
    (req, res, values) =>
      void run(req, values)
        // A result that cannot be serialized is answered as an error too, never left to crash the process.
        .then((result) => sendJson(res, 200, A2A_JSON_MEDIA_TYPE, JSON.stringify(result)))
        .catch((error: unknown) => sendRestError(res, error));
  const stream =
    (run: (req: HttpRequest, res: ServerResponse, values: PathValues) => Promise<void>): RestServe =>
    (req, res, values) =>
      void run(req, res, values).catch((error: unknown) => sendRestError(res, error));
  const refuse =
    (run: (req: HttpRequest, values: PathValues) => never): RestServe =>
    (req, res, values) => {
      try {
        run(req, values);
      } catch (error) {
        sendRestError(res, error);
      }
    };
  return [
    ['POST', REST_ROUTES.sendMessage, json((req, v) => rest.sendMessage(req, pathNoId(v)))],
    ['POST', REST_ROUTES.sendStreamingMessage, stream((req, res, v) => rest.sendStreamingMessage(req, res, pathNoId(v)))],
    ['GET', REST_ROUTES.subscribeToTask, stream((req, res, v) => rest.subscribeToTask(req, res, path(v), false))],
    ['POST', REST_ROUTES.subscribeToTask, stream((req, res, v) => rest.subscribeToTask(req, res, path(v), true))],
    ['POST', REST_ROUTES.cancelTask, json((req, v) => rest.cancelTask(req, path(v)))],
    ['GET', REST_ROUTES.listTasks, json((req, v) => rest.listTasks(req, pathNoId(v)))],
    ['GET', REST_ROUTES.getTask, json((req, v) => rest.getTask(req, path(v)))],
    ['POST', REST_ROUTES.pushNotificationConfigs, refuse((req, v) => rest.pushNotificationConfig(req, pathNoId(v)))],
    ['GET', REST_ROUTES.pushNotificationConfigs, refuse((req, v) => rest.pushNotificationConfig(req, pathNoId(v)))],
    ['GET', REST_ROUTES.pushNotificationConfig, refuse((req, v) => rest.pushNotificationConfig(req, pathNoId(v)))],
    ['DELETE', REST_ROUTES.pushNotificationConfig, refuse((req, v) => rest.pushNotificationConfig(req, pathNoId(v)))],
    ['GET', REST_ROUTES.extendedAgentCard, refuse((req, v) => rest.extendedAgentCard(req, pathNoId(v)))],
  ];
}

/** The path Nest registers for a route: segments joined by single slashes, without a trailing one. */
function joinPath(...parts: string[]): string {
  const joined = `/${parts.join('/')}`.replace(/\/+/g, '/');
  return joined.length > 1 ? joined.replace(/\/$/, '') : joined;
}

/** The first layer Nest's Express adapter installs, which runs its request and response hooks when there are some. */
function isAdapterHookLayer(layer: ExpressLayer): boolean {
  if (layer.route) return false;
  const source = Function.prototype.toString.call(layer.handle);
  return source.includes('onRequestHook') && source.includes('onResponseHook');
}
