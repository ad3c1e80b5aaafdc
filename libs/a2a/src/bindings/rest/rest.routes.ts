/**
 * The HTTP+JSON routes (CHECKLIST §1), relative to the binding's prefix, in Express 5 (path-to-regexp v8) syntax:
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

/** The methods each route is served with (GET also answers HEAD, as in Express). */
const ROUTE_METHODS: Readonly<Record<keyof typeof REST_ROUTES, readonly string[]>> = {
  sendMessage: ['POST'],
  sendStreamingMessage: ['POST'],
  subscribeToTask: ['GET', 'POST'],
  cancelTask: ['POST'],
  listTasks: ['GET'],
  getTask: ['GET'],
  pushNotificationConfigs: ['GET', 'POST'],
  pushNotificationConfig: ['GET', 'DELETE'],
  extendedAgentCard: ['GET'],
};

// Case-insensitive and with an optional trailing slash, as Express matches routes by default.
const ROUTE_PATTERNS = (Object.keys(REST_ROUTES) as Array<keyof typeof REST_ROUTES>).map((name) => {
  const source = REST_ROUTES[name]
    .split('\\:')
    .map((part) => part.replace(/:\w+/g, '[^/]+'))
    .join(':');
  return { pattern: new RegExp(`^(?:/[^/]+)?/${source}/?$`, 'i'), methods: ROUTE_METHODS[name] };
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
