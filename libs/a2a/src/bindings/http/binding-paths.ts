import type { BindingMounts } from '../../binding-mounts.js';
import { isRootRestPath } from '../rest/rest.routes.js';

/** The HTTP binding a request path belongs to; for HTTP+JSON, with the path below the binding's prefix. */
export type HttpBindingPath = { binding: 'jsonrpc' } | { binding: 'rest'; route: string };

/**
 * Which binding's paths `path` (lowercase, as Express gives `req.path`) is among, so that answers the module gives
 * outside its routes (a body parser's error, an unknown route) are in that binding's error shape.
 *
 * A mount is recognised at the end of the path too (`/api/a2a/jsonrpc`), so the app may have a global prefix. A binding
 * mounted at the root claims only its own paths (JSON-RPC: `/`; HTTP+JSON: see `isRootRestPath`), so the agent card
 * and the app's other routes keep Nest's behaviour.
 */
export function bindingOfPath(path: string, mounts: BindingMounts): HttpBindingPath | undefined {
  const jsonRpc = mounts.jsonRpc?.toLowerCase();
  if (jsonRpc !== undefined && (jsonRpc === '/' ? path === '/' : path.replace(/\/$/, '').endsWith(jsonRpc))) {
    return { binding: 'jsonrpc' };
  }
  const prefix = mounts.rest?.toLowerCase();
  if (prefix === undefined) return undefined;
  if (prefix === '') return isRootRestPath(path) ? { binding: 'rest', route: path } : undefined;
  if (path.replace(/\/$/, '').endsWith(prefix)) return { binding: 'rest', route: '/' };
  const at = path.indexOf(`${prefix}/`);
  return at < 0 ? undefined : { binding: 'rest', route: path.slice(at + prefix.length) };
}
