import type { Observable } from 'rxjs';
import type { A2aCallContext } from '../../context/call-context.js';
import type { A2aEngine } from '../../engine/a2a.engine.js';
import type { StreamResponse } from '../../protocol/a2a.types.js';
import { A2A_OPERATIONS } from '../a2a-operations.js';

/** One JSON-RPC method: validates its params, then runs the operation. Streaming methods answer with SSE. */
export type JsonRpcMethod =
  | { streaming: false; invoke(params: unknown, call: A2aCallContext): Promise<unknown> }
  | { streaming: true; invoke(params: unknown, call: A2aCallContext): Observable<StreamResponse> };

/** The A2A operations by JSON-RPC method name (CHECKLIST §1), bound to the engine. */
export function jsonRpcMethods(engine: A2aEngine): ReadonlyMap<string, JsonRpcMethod> {
  return new Map(
    A2A_OPERATIONS.map((operation): [string, JsonRpcMethod] =>
      operation.streaming
        ? [operation.name, { streaming: true, invoke: (params, call) => operation.run(engine, params, call) }]
        : [operation.name, { streaming: false, invoke: (params, call) => operation.run(engine, params, call) }],
    ),
  );
}
