import type { A2aErrorKind } from '../../errors/a2a-error-codes.js';
import { A2aError, type ErrorDetail } from '../../errors/a2a.error.js';

/** A JSON-RPC 2.0 request id; `null` when the caller sent none (a notification) or an unusable one. */
export type JsonRpcId = string | number | null;

export interface JsonRpcRequest {
  id: JsonRpcId;
  method: string;
  /** As sent: the binding checks it is an object before the method's validator reads it. */
  params: unknown;
}

export interface JsonRpcSuccessResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: unknown;
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  /** `data` is always the list of `google.rpc` details (ErrorInfo, BadRequest), never a free object as in v0.3 (spec §9.5). */
  error: { code: number; message: string; data: ErrorDetail[] };
}

/**
 * Errors whose HTTP status clients act on (re-authenticate, shrink the body, send JSON, POST instead, back off); every
 * other error travels with 200.
 */
const KINDS_WITH_HTTP_STATUS: ReadonlySet<A2aErrorKind> = new Set([
  'Unauthenticated',
  'PermissionDenied',
  'PayloadTooLarge',
  'UnsupportedMediaType',
  'MethodNotAllowed',
  'TooManyRequests',
  'Unavailable',
]);

/**
 * Checks the JSON-RPC 2.0 envelope (not the params). Batches are refused: A2A never mentions them, and a batch of
 * streaming calls has no sensible HTTP response. A request without `id` (a notification) is served like one with
 * `id: null`, since every A2A method has a result the caller needs (a2a-js does the same).
 */
export function parseJsonRpcRequest(body: unknown): JsonRpcRequest {
  if (Array.isArray(body)) {
    throw new A2aError(
      'InvalidRequest',
      'Batch requests are not supported: send one JSON-RPC request per HTTP request',
    );
  }
  if (!isObject(body)) throw new A2aError('InvalidRequest', 'The body must be a JSON-RPC 2.0 request object');
  if (body.jsonrpc !== '2.0') throw new A2aError('InvalidRequest', '"jsonrpc" must be "2.0"');
  if (body.id !== undefined && !isJsonRpcId(body.id))
    throw new A2aError('InvalidRequest', '"id" must be a string, a number or null');
  if (typeof body.method !== 'string') throw new A2aError('InvalidRequest', '"method" must be a string');
  return { id: (body.id as JsonRpcId | undefined) ?? null, method: body.method, params: body.params };
}

/** The id to echo in an error response: the request's, when the body got far enough to have a usable one. */
export function requestIdOf(body: unknown): JsonRpcId {
  return isObject(body) && isJsonRpcId(body.id) ? body.id : null;
}

export function jsonRpcResult(id: JsonRpcId, result: unknown): JsonRpcSuccessResponse {
  return { jsonrpc: '2.0', id, result };
}

export function jsonRpcError(id: JsonRpcId, error: A2aError): JsonRpcErrorResponse {
  return { jsonrpc: '2.0', id, error: { code: error.code.jsonRpc, message: error.message, data: error.details() } };
}

/** HTTP status of an error response: 200 as usual for JSON-RPC, except for the kinds above. */
export function httpStatusOf(error: A2aError): number {
  return KINDS_WITH_HTTP_STATUS.has(error.kind) ? error.code.http : 200;
}

function isJsonRpcId(value: unknown): value is JsonRpcId {
  return value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
