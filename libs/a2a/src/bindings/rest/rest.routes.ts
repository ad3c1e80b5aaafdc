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

// Case-insensitive and with an optional trailing slash, as Express matches routes by default.
const ROUTE_PATTERNS = Object.values(REST_ROUTES).map((route) => {
  const source = route
    .split('\\:')
    .map((part) => part.replace(/:\w+/g, '[^/]+'))
    .join(':');
  return new RegExp(`^(?:/[^/]+)?/${source}/?$`, 'i');
});

/** Whether `path` (relative to the prefix, with its leading slash) is one of the routes, with or without a tenant. */
export function isRestRoutePath(path: string): boolean {
  return ROUTE_PATTERNS.some((pattern) => pattern.test(path));
}
