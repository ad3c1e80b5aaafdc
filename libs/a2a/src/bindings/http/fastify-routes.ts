import type { IncomingMessage, ServerResponse } from 'node:http';
import { A2A_JSON_MEDIA_TYPE } from '../../a2a.constants.js';
import type { A2aErrorKind } from '../../errors/a2a-error-codes.js';
import { A2aError } from '../../errors/a2a.error.js';
import { answerJsonRpcFailure } from '../jsonrpc/jsonrpc-error.response.js';
import { sendRestError } from '../rest/rest-error.response.js';
import type { HttpRoute } from './http-route.js';
import type { HttpRequest } from './http-request.js';
import { setHttpViews } from './http-views.js';
import { setPendingHeaders } from './pending-headers.js';
import { discardBody } from './request-body.js';

/** What the module uses of a Fastify instance (structural, so the core does not import fastify). */
export interface FastifyInstanceLike {
  register(plugin: (instance: FastifyInstanceLike) => Promise<void>): unknown;
  route(options: {
    method: string | string[];
    url: string;
    handler: (request: FastifyRequestLike, reply: FastifyReplyLike) => void;
    errorHandler?: (error: FastifyErrorLike, request: FastifyRequestLike, reply: FastifyReplyLike) => void;
  }): unknown;
  hasRoute(options: { method: string; url: string }): boolean;
  addHook(
    name: 'onRequest',
    hook: (request: FastifyRequestLike & { is404: boolean }, reply: FastifyReplyLike, done: () => void) => void,
  ): unknown;
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    type: string,
    options: { parseAs: 'buffer'; bodyLimit: number },
    parser: (request: unknown, body: Buffer, done: (error: Error | null, body?: unknown) => void) => void,
  ): void;
  /** Without `parseAs`, the parser gets the body's stream, which it may leave unread. */
  addContentTypeParser(
    type: string,
    parser: (request: unknown, payload: unknown, done: (error: Error | null, body?: unknown) => void) => void,
  ): void;
}

interface FastifyRequestLike {
  raw: IncomingMessage;
  body?: unknown;
  query?: unknown;
  params?: Record<string, string | undefined>;
}

interface FastifyReplyLike {
  raw: ServerResponse;
  hijack(): void;
  getHeaders(): Record<string, unknown>;
}

interface FastifyErrorLike {
  statusCode?: number;
  message: string;
}

/** What A2aHttpRoutes hands over: its routes, the card, and the answer for paths and methods no route serves. */
export interface FastifyRouteSet {
  routes: readonly HttpRoute[];
  cardPath: string;
  serveCard(req: IncomingMessage, res: ServerResponse): void;
  /** Other GETs served like the card, outside the bindings (the JWK Set of the card's signing keys). */
  publicRoutes: ReadonlyArray<{ path: string; serve(req: IncomingMessage, res: ServerResponse): void }>;
  /** 405 / 404 in the binding's shape for a path of the bindings (see UnmatchedRouteHandler). */
  unmatched(req: HttpRequest, res: ServerResponse, path: string): boolean;
  /** Whether `path` falls under a binding's mount, so that `unmatched` answers it. */
  claims(path: string): boolean;
  /** Prefixes below which every path is the bindings' (the non-root mounts). */
  ownedPrefixes: readonly string[];
  /** The prefix of HTTP+JSON mounted at the app root (`''`, or the global prefix), whose path shapes it claims. */
  rootRestPrefix: string | undefined;
  maxBodyBytes: number;
}

const METHODS = ['GET', 'POST', 'DELETE', 'PUT', 'PATCH'];
/** `:id\:verb`, a path parameter followed by a literal `:verb` in the same segment (Express syntax). */
const PARAM_WITH_VERB = /:(\w+)\\:(\w+)/;

/** Routes that share a Fastify path: find-my-way cannot match `:id:cancel` in one segment, so `:id` takes the verb too. */
interface RouteGroup {
  method: HttpRoute['method'];
  url: string;
  /** Routes with a verb suffix on a parameter first, then the one without. */
  members: Array<{ route: HttpRoute; param?: string; verb?: string }>;
}

/**
 * Registers the bindings on Fastify (`@nestjs/platform-fastify`), in a plugin of their own: there `application/json`
 * and `application/a2a+json` bodies reach the endpoints as bytes, at most `limits.maxBodyBytes`, so both are read and
 * refused exactly as on Express; a body of any other media type is left unread, for the endpoints to refuse by its
 * Content-Type (readJsonBody) without reading it. The endpoints take node's request and response (the reply hijacked),
 * and the app's guards and interceptors get Fastify's request and reply, as on any Fastify route.
 */
export function registerFastifyRoutes(instance: FastifyInstanceLike, set: FastifyRouteSet): void {
  // A path under a mount that no route has (a forgotten or extra global prefix) goes to the app's not-found handler,
  // whose context runs the root instance's hooks: answered here in the binding's shape, as on Express.
  instance.addHook('onRequest', (request, reply, done) => {
    if (!request.is404 || request.raw.method === 'OPTIONS') return done();
    const path = (request.raw.url ?? '/').split('?')[0];
    if (!set.claims(path)) return done();
    hijack(reply);
    void discardBody(request.raw).then(() => set.unmatched(request.raw as HttpRequest, reply.raw, path));
  });
  instance.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    for (const type of ['application/json', A2A_JSON_MEDIA_TYPE]) {
      scope.addContentTypeParser(type, { parseAs: 'buffer', bodyLimit: set.maxBodyBytes }, (_request, body, done) =>
        done(null, body),
      );
    }
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    // The card and the routes beside it (the JWK Set), outside the bindings' own paths.
    for (const route of [{ path: set.cardPath, serve: set.serveCard }, ...set.publicRoutes]) {
      scope.route({
        method: 'GET',
        url: route.path,
        handler: (request, reply) => {
          hijack(reply);
          route.serve(request.raw, reply.raw);
        },
      });
    }
    const groups = groupRoutes(set.routes);
    for (const group of groups.values()) {
      scope.route({
        method: group.method,
        url: group.url,
        handler: (request, reply) => serveGroup(group, set, request, reply),
        errorHandler: bodyErrorHandler(group.members[0].route),
      });
    }
    // The methods a path of the bindings does not serve, and every path below a non-root mount: the bindings' answers.
    const urls = new Map<string, Set<string>>();
    for (const group of groups.values()) urls.set(group.url, (urls.get(group.url) ?? new Set()).add(group.method));
    const unmatched = (request: FastifyRequestLike, reply: FastifyReplyLike) => answerUnmatched(set, request, reply);
    for (const [url, served] of urls) {
      // Never over one of the app's own routes (JSON-RPC at the app root shares `/` with the app).
      const others = METHODS.filter((method) => !served.has(method) && !scope.hasRoute({ method, url }));
      if (others.length > 0) scope.route({ method: others, url, handler: unmatched });
    }
    for (const prefix of set.ownedPrefixes) {
      for (const url of [prefix, `${prefix}/*`]) {
        const free = METHODS.filter((method) => !scope.hasRoute({ method, url }));
        if (free.length > 0) scope.route({ method: free, url, handler: unmatched });
      }
    }
    // At the root, HTTP+JSON claims the shapes of its routes only (see isRootRestPath), with or without a tenant.
    if (set.rootRestPrefix !== undefined) {
      for (const shape of ['/message::*', '/tasks/*', '/:tenant/message::*', '/:tenant/tasks/*']) {
        scope.route({ method: METHODS, url: `${set.rootRestPrefix}${shape}`, handler: unmatched });
      }
    }
  });
}

function groupRoutes(routes: readonly HttpRoute[]): Map<string, RouteGroup> {
  const groups = new Map<string, RouteGroup>();
  for (const route of routes) {
    const verbMatch = PARAM_WITH_VERB.exec(route.path);
    const url = route.path.replace(PARAM_WITH_VERB, ':$1').replaceAll('\\:', '::');
    const key = `${route.method} ${url}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { method: route.method, url, members: [] }));
    group.members.push({ route, param: verbMatch?.[1], verb: verbMatch?.[2] });
    group.members.sort((a, b) => Number(b.verb !== undefined) - Number(a.verb !== undefined));
  }
  return groups;
}

/** Hands the reply to the bindings, which write node's response; what hooks and guards set on the reply goes too. */
function hijack(reply: FastifyReplyLike): void {
  reply.hijack();
  setPendingHeaders(reply.raw, () => reply.getHeaders());
}

function serveGroup(
  group: RouteGroup,
  set: FastifyRouteSet,
  request: FastifyRequestLike,
  reply: FastifyReplyLike,
): void {
  hijack(reply);
  const req = request.raw as HttpRequest;
  const params = request.params ?? {};
  for (const { route, param, verb } of group.members) {
    let values = params;
    if (param && verb) {
      const value = params[param];
      if (value === undefined || !value.endsWith(`:${verb}`)) continue;
      values = { ...params, [param]: value.slice(0, -verb.length - 1) };
    }
    req.body = request.body;
    req.query = request.query as HttpRequest['query'];
    setHttpViews(req, request as unknown as HttpRequest, reply as unknown as ServerResponse);
    return route.serve(req, reply.raw, values);
  }
  answerUnmatched(set, request, reply);
}

function answerUnmatched(set: FastifyRouteSet, request: FastifyRequestLike, reply: FastifyReplyLike): void {
  hijack(reply);
  const path = (request.raw.url ?? '/').split('?')[0];
  if (!set.unmatched(request.raw as HttpRequest, reply.raw, path))
    sendRestError(reply.raw, new A2aError('MethodNotFound'));
}

/**
 * Fastify's own body errors (over the limit, a Content-Type that does not parse) in the route's binding shape, once the
 * rest of the body is discarded: Fastify stops reading at the limit, and answering a client still uploading would
 * close the connection under it (EPIPE) before it reads the answer.
 */
function bodyErrorHandler(route: HttpRoute) {
  return (error: FastifyErrorLike, request: FastifyRequestLike, reply: FastifyReplyLike): void => {
    hijack(reply);
    const a2aError = new A2aError(BODY_ERROR_KINDS[error.statusCode ?? 400] ?? 'InvalidRequest', error.message);
    void discardBody(request.raw).then(() => {
      if (route.binding === 'jsonrpc') answerJsonRpcFailure(request.raw as HttpRequest, reply.raw, a2aError);
      else sendRestError(reply.raw, a2aError);
    });
  };
}

const BODY_ERROR_KINDS: Readonly<Record<number, A2aErrorKind>> = {
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
};
