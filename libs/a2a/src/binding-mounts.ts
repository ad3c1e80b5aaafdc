import type { A2aModuleExtras } from './a2a-module.options.js';

/** Normalized mount paths of the HTTP bindings: `''` is the app root; undefined means not mounted. */
export interface BindingMounts {
  /** Path of the JSON-RPC endpoint, e.g. `/a2a/jsonrpc`, or `/` at the root. */
  jsonRpc?: string;
  /** Prefix of the HTTP+JSON routes, e.g. `/a2a/rest`, or `''` at the root. */
  rest?: string;
}

export const A2A_BINDING_MOUNTS = Symbol('A2A_BINDING_MOUNTS');

export function bindingMounts(extras: Pick<A2aModuleExtras, 'jsonRpc' | 'rest'>): BindingMounts {
  const trim = (path: string) => `/${path.replace(/^\/+|\/+$/g, '')}`;
  return {
    jsonRpc: extras.jsonRpc ? trim(extras.jsonRpc.path) : undefined,
    rest: extras.rest ? trim(extras.rest.path).replace(/^\/$/, '') : undefined,
  };
}
