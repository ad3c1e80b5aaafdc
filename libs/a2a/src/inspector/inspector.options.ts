/**
 * The inspector page (module option `inspector`): a page served by the agent itself that shows its card and drives its
 * operations from a browser (compose a message, follow the task's events, cancel, list tasks). Meant for development:
 * the module refuses to start with it under `NODE_ENV=production` unless `allowInProduction` is true. The page and its
 * files are served behind the same guards as the agent's operations.
 */
export interface A2aInspectorOptions {
  /** Where the page is served, below the app's global prefix. Default `/a2a/inspector`. */
  path?: string;
  /** Serve the page even when `NODE_ENV` is `production`. Default false: the module refuses to start. */
  allowInProduction?: boolean;
}

/** Where the page is served when option `inspector.path` is not given. */
export const DEFAULT_INSPECTOR_PATH = '/a2a/inspector';
