import type { CompatVersion } from '../compat-version.js';
import { V03CardView, wantsV03Card } from './v03.card.js';
import { v03ExtensionsHeaders, v03JsonRpcCall, v03Result, v03StreamEventOf, v1RequestOf } from './v03.jsonrpc.js';
import { V03_REST_OPERATION_ROUTES } from './v03.rest.js';
import { V03_PROTOCOL_VERSION } from './v03.types.js';

/**
 * A2A v0.3 (option `compat.v03`): its JSON-RPC methods on the JSON-RPC endpoint, its `/v1/…` routes below the
 * HTTP+JSON mount, the card with its fields for requests without `A2A-Version` (or with 0.3), and the JSON-RPC
 * endpoint listed a second time in the card with `protocolVersion: '0.3'`.
 */
export const V03_COMPAT: CompatVersion = {
  jsonRpcDialect: {
    callOf(method, req) {
      const call = v03JsonRpcCall(method, req);
      if (!call) return undefined;
      return {
        operation: call.operation,
        protocol: call.protocol,
        request: (params) => v1RequestOf(call, params),
        result: (result) => v03Result(call, result),
        event: (event) => v03StreamEventOf(call, event),
        extensionsHeaders: v03ExtensionsHeaders,
      };
    },
  },
  restRoutes: V03_REST_OPERATION_ROUTES,
  cardView() {
    const view = new V03CardView();
    return { vary: 'A2A-Version', of: (req, served) => (wantsV03Card(req) ? view.of(served.card, served) : undefined) };
  },
  interfaces: [{ mount: 'jsonRpc', protocolBinding: 'JSONRPC', protocolVersion: V03_PROTOCOL_VERSION }],
};
