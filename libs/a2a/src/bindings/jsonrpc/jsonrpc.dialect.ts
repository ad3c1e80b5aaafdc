import type { A2aOperationName } from '../../context/a2a-invocation.js';
import type { StreamResponse } from '../../protocol/a2a.types.js';
import type { HttpProtocolContext } from '../http/http-protocol-context.js';
import type { HttpRequest } from '../http/http-request.js';

/**
 * Another protocol version spoken on the JSON-RPC endpoint (option `compat`). The endpoint asks each dialect about
 * every call before reading it as v1.0; a dialect claims the calls that are its own and translates them at the edge:
 * the params to the v1.0 request before validation and the app's guards, the answer back after. Skills, guards and
 * stores only ever see v1.0.
 */
export interface JsonRpcDialect {
  /**
   * The call in this dialect; undefined when it is not one (the endpoint then reads it as v1.0).
   *
   * @throws A2aError to refuse a call that is the dialect's but can be served in no version (e.g. MethodNotFound).
   */
  callOf(method: string, req: HttpRequest): JsonRpcDialectCall | undefined;
}

/** One call a dialect claimed: the v1.0 operation it is served as, and how its request and answers are translated. */
export interface JsonRpcDialectCall {
  readonly operation: A2aOperationName;
  /** The version the call speaks and the extensions it asks for. */
  readonly protocol: HttpProtocolContext;
  /** The v1.0 request its params make, for the operation's own validator. */
  request(params: Record<string, unknown>): unknown;
  /** A unary operation's v1.0 result in the dialect's shape (the JSON-RPC `result`). */
  result(result: unknown): unknown;
  /** A stream's event in the dialect's shape (the `result` of its SSE frame). */
  event(event: StreamResponse): unknown;
  /** The headers that echo the extensions the call activated; none when it activated none. */
  extensionsHeaders(activated: readonly string[]): Record<string, string> | undefined;
}

/** The dialects the JSON-RPC endpoint speaks besides v1.0, in the order it asks them (an empty list: v1.0 only). */
export const A2A_JSONRPC_DIALECTS = Symbol('A2A_JSONRPC_DIALECTS');
