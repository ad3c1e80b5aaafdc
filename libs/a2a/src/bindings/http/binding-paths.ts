import type { BindingMounts } from '../../binding-mounts.js';
import { isRootRestPath } from '../rest/rest.routes.js';
import { joinPath } from './http-binding.js';

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

/**
 * Where `path` (lowercase) stands against the paths the bindings are really served at, under the app's global prefix:
 * the JSON-RPC endpoint itself (`jsonrpc-endpoint`), an HTTP+JSON path below the served prefix with its route relative
 * to it (`rest-route`), or neither (`elsewhere`, with the path the binding is served at). A request that only looks like
 * the binding's (a forgotten or extra global prefix) is `elsewhere`, so it gets a 404 rather than a 405.
 */
export type ServedPath =
  { kind: 'jsonrpc-endpoint' } | { kind: 'rest-route'; route: string } | { kind: 'elsewhere'; servedAt: string };

/** Classifies a path `bindingOfPath` gave to `binding`; see ServedPath. */
export function servedPathOf(
  path: string,
  binding: HttpBindingPath['binding'],
  mounts: BindingMounts,
  globalPrefix: string,
): ServedPath {
  const trimmed = path.length > 1 ? path.replace(/\/$/, '') : path;
  if (binding === 'jsonrpc') {
    const endpoint = joinPath(globalPrefix, mounts.jsonRpc ?? '');
    return trimmed === endpoint.toLowerCase()
      ? { kind: 'jsonrpc-endpoint' }
      : { kind: 'elsewhere', servedAt: endpoint };
  }
  const prefix = joinPath(globalPrefix, mounts.rest ?? '');
  const lowerPrefix = prefix.toLowerCase();
  if (prefix === '/') return { kind: 'rest-route', route: trimmed };
  if (trimmed === lowerPrefix) return { kind: 'rest-route', route: '/' };
  return trimmed.startsWith(`${lowerPrefix}/`)
    ? { kind: 'rest-route', route: trimmed.slice(prefix.length) }
    : { kind: 'elsewhere', servedAt: prefix };
}
