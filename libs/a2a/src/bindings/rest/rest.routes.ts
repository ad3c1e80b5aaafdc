import type { ServerResponse } from 'node:http';
import type { StreamResponse } from '../../protocol/a2a.types.js';
import { OPERATIONS_BY_NAME, type A2aOperation } from '../a2a-operations.js';
import type { HttpProtocolContext } from '../http/http-protocol-context.js';
import type { HttpRequest } from '../http/http-request.js';
import { GET_TASK_QUERY, LIST_PUSH_CONFIGS_QUERY, LIST_TASKS_QUERY, type QuerySchema } from './rest-query.parser.js';

/**
 * The HTTP+JSON routes (spec §5.3), relative to the binding's prefix, in Express 5 (path-to-regexp v8) syntax:
 * `\\:` is the literal colon of `message:send` and `{id}:cancel`, `:name` a path parameter.
 */
export const REST_ROUTES = {
  sendMessage: 'message\\:send',
  sendStreamingMessage: 'message\\:stream',
  subscribeToTask: 'tasks/:id\\:subscribe',
  cancelTask: 'tasks/:id\\:cancel',
  listTasks: 'tasks',
  getTask: 'tasks/:id',
  pushNotificationConfigs: 'tasks/:id/pushNotificationConfigs',
  pushNotificationConfig: 'tasks/:id/pushNotificationConfigs/:configId',
  extendedAgentCard: 'extendedAgentCard',
} as const;

/** Every route also exists below a `/{tenant}` segment (proto `additional_bindings`). */
export const TENANT_SEGMENT = ':tenant';

/** Values of the URL path (`tenant`, `id`, `configId`), as the router decoded them. */
export type RestPathValues = Readonly<Record<string, string | undefined>>;

/**
 * What the route of another protocol version adds to a RestRoute (option `compat`): how its request is translated to
 * the v1.0 one before validation and the app's guards, and its answers back after.
 */
export interface RestDialect {
  protocol(req: HttpRequest): HttpProtocolContext;
  request(input: unknown, values: RestPathValues, query: HttpRequest['query']): unknown;
  result(result: unknown): { status: number; body: unknown };
  event(event: StreamResponse): unknown;
  extensionsHeaders(activated: readonly string[]): Record<string, string> | undefined;
  sendError(res: ServerResponse, error: unknown): void;
  errorFrame(error: unknown): string;
}

/** Where a route's request message comes from, besides its path: the JSON body, the query string, or nothing. */
export type RestInput = 'body' | 'none' | QuerySchema;

/** One HTTP+JSON route and the operation it serves (§11.3). */
export interface RestRoute {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly operation: A2aOperation;
  readonly input: RestInput;
  /** Path parameter → request field (`configId` is the push config's `id`, `id` then the `taskId`). */
  readonly pathFields: Readonly<Record<string, string>>;
  /** Set on the route of another protocol version (option `compat`): how its request and answers are translated. */
  readonly dialect?: RestDialect;
}

/**
 * The routes of other protocol versions (option `compat`), relative to the binding's prefix: registered ahead of the
 * v1.0 ones, whose `/{tenant}/…` would otherwise take their paths. An empty list: v1.0 only.
 */
export const A2A_REST_DIALECT_ROUTES = Symbol('A2A_REST_DIALECT_ROUTES');

const TASK = { id: 'id' };
const TASK_OF_CONFIG = { id: 'taskId' };
const CONFIG = { id: 'taskId', configId: 'id' };

/**
 * Every route, in registration order: within the binding, the literal `:verb` routes come before `tasks/:id`, so
 * `tasks/x:subscribe` is never read as task `x:subscribe`; every fixed route comes before every `/{tenant}/…` one, so
 * `GET /tasks/tasks` is task "tasks", never tenant "tasks".
 */
export const REST_OPERATION_ROUTES: readonly RestRoute[] = [
  { method: 'POST', path: REST_ROUTES.sendMessage, operation: operation('SendMessage'), input: 'body', pathFields: {} },
  {
    method: 'POST',
    path: REST_ROUTES.sendStreamingMessage,
    operation: operation('SendStreamingMessage'),
    input: 'body',
    pathFields: {},
  },
  // The proto's verb for SubscribeToTask is GET; the prose says POST (spec §11.3.2): both are served.
  {
    method: 'GET',
    path: REST_ROUTES.subscribeToTask,
    operation: operation('SubscribeToTask'),
    input: 'none',
    pathFields: TASK,
  },
  {
    method: 'POST',
    path: REST_ROUTES.subscribeToTask,
    operation: operation('SubscribeToTask'),
    input: 'body',
    pathFields: TASK,
  },
  // The body may be `{}`, `{"metadata":…}`, or absent (the a2a-js client POSTs nothing).
  { method: 'POST', path: REST_ROUTES.cancelTask, operation: operation('CancelTask'), input: 'body', pathFields: TASK },
  {
    method: 'GET',
    path: REST_ROUTES.listTasks,
    operation: operation('ListTasks'),
    input: LIST_TASKS_QUERY,
    pathFields: {},
  },
  {
    method: 'GET',
    path: REST_ROUTES.getTask,
    operation: operation('GetTask'),
    input: GET_TASK_QUERY,
    pathFields: TASK,
  },
  {
    method: 'POST',
    path: REST_ROUTES.pushNotificationConfigs,
    operation: operation('CreateTaskPushNotificationConfig'),
    input: 'body',
    pathFields: TASK_OF_CONFIG,
  },
  {
    method: 'GET',
    path: REST_ROUTES.pushNotificationConfigs,
    operation: operation('ListTaskPushNotificationConfigs'),
    input: LIST_PUSH_CONFIGS_QUERY,
    pathFields: TASK_OF_CONFIG,
  },
  {
    method: 'GET',
    path: REST_ROUTES.pushNotificationConfig,
    operation: operation('GetTaskPushNotificationConfig'),
    input: 'none',
    pathFields: CONFIG,
  },
  {
    method: 'DELETE',
    path: REST_ROUTES.pushNotificationConfig,
    operation: operation('DeleteTaskPushNotificationConfig'),
    input: 'none',
    pathFields: CONFIG,
  },
  {
    method: 'GET',
    path: REST_ROUTES.extendedAgentCard,
    operation: operation('GetExtendedAgentCard'),
    input: 'none',
    pathFields: {},
  },
];

function operation(name: string): A2aOperation {
  return OPERATIONS_BY_NAME.get(name)!;
}

// Each route path with the methods it is served with (GET also answers HEAD, as in Express), matched as Express
// does: case-insensitively and with an optional trailing slash.
const ROUTE_PATTERNS = [...new Set(REST_OPERATION_ROUTES.map((route) => route.path))].map((path) => {
  const source = path
    .split('\\:')
    .map((part) => part.replace(/:\w+/g, '[^/]+'))
    .join(':');
  const methods = REST_OPERATION_ROUTES.filter((route) => route.path === path).map((route) => route.method);
  return { pattern: new RegExp(`^(?:/[^/]+)?/${source}/?$`, 'i'), methods };
});

/** What the binding claims when mounted at the app root: its routes' first segments, with or without a tenant. */
const ROOT_SPACE = /^(?:\/[^/]+)?\/(?:message:[^/]*|tasks(?:\/.*)?|extendedagentcard)\/?$/i;

/**
 * The methods served at `path` (relative to the prefix, with its leading slash, with or without a tenant), sorted;
 * empty when no route has that shape.
 */
export function restMethodsAt(path: string): string[] {
  const methods = new Set<string>();
  for (const route of ROUTE_PATTERNS) {
    if (route.pattern.test(path)) route.methods.forEach((method) => methods.add(method));
  }
  return [...methods].sort();
}

/**
 * Whether `path` is the binding's when it is mounted at the app root: the shape of one of its routes, or below one of
 * their first segments (`/tasks/t-1/other`). The app's other paths stay the app's.
 */
export function isRootRestPath(path: string): boolean {
  return ROOT_SPACE.test(path);
}
