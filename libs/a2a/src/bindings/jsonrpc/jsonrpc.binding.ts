import { Inject, Injectable } from '@nestjs/common';
import { A2A_BINDING_MOUNTS, type BindingMounts } from '../../binding-mounts.js';
import { joinPath, type HttpBindingPlugin, type HttpBindingRoutes } from '../http/http-binding.js';
import type { HttpRoute } from '../http/http-route.js';
import { JsonRpcEndpoint } from './jsonrpc.endpoint.js';

/** The JSON-RPC binding's one route: POST on its mount. */
@Injectable()
export class JsonRpcRoutes implements HttpBindingRoutes {
  constructor(
    @Inject(A2A_BINDING_MOUNTS) private readonly mounts: BindingMounts,
    private readonly endpoint: JsonRpcEndpoint,
  ) {}

  routes(globalPrefix: string): HttpRoute[] {
    if (this.mounts.jsonRpc === undefined) return [];
    return [
      {
        method: 'POST',
        path: joinPath(globalPrefix, this.mounts.jsonRpc),
        binding: 'jsonrpc',
        serve: (req, res) => void this.endpoint.serve(req, res),
      },
    ];
  }
}

/** The JSON-RPC binding (spec §9), on by default at the module's `jsonRpc.path`. */
export function jsonRpcBinding(): HttpBindingPlugin {
  return {
    protocolBinding: 'JSONRPC',
    controllers: [],
    providers: [JsonRpcEndpoint, JsonRpcRoutes],
    routes: JsonRpcRoutes,
  };
}
