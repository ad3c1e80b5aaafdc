import { A2A_ERROR_CODES, type A2aErrorKind } from '../errors/a2a-error-codes.js';
import type { ErrorDetail } from '../errors/a2a.error.js';
import type { ProtocolBinding } from '../protocol/a2a.types.js';
import { A2aProtocolError, ERROR_INFO_TYPE, type A2aProtocolErrorWire } from './a2a-client.errors.js';

/**
 * Reads the protocol errors of each binding (spec §9.5, §10.6, §11.6) into {@link A2aProtocolError}. The kind comes
 * from `ErrorInfo.reason` first (the only spelling that did not change after v1.0.0), then from the binding's code.
 */

const KINDS = Object.entries(A2A_ERROR_CODES) as Array<[A2aErrorKind, (typeof A2A_ERROR_CODES)[A2aErrorKind]]>;
const KIND_BY_REASON = new Map(KINDS.map(([kind, code]) => [code.reason, kind]));
/** The first kind of each JSON-RPC code: -32600 is InvalidRequest, whatever else shares it. */
const KIND_BY_JSON_RPC = new Map<number, A2aErrorKind>();
for (const [kind, code] of KINDS) if (!KIND_BY_JSON_RPC.has(code.jsonRpc)) KIND_BY_JSON_RPC.set(code.jsonRpc, kind);

/** What a status says when no ErrorInfo names the error: an HTTP status of any binding. */
const KIND_BY_HTTP: ReadonlyMap<number, A2aErrorKind> = new Map<number, A2aErrorKind>([
  [400, 'InvalidParams'],
  [401, 'Unauthenticated'],
  [403, 'PermissionDenied'],
  [404, 'MethodNotFound'],
  [405, 'MethodNotAllowed'],
  [413, 'PayloadTooLarge'],
  [415, 'ContentTypeNotSupported'],
  [429, 'TooManyRequests'],
  [500, 'Internal'],
  [502, 'Unavailable'],
  [503, 'Unavailable'],
  [504, 'Unavailable'],
]);

/** gRPC canonical status names by code, and what each means when no ErrorInfo says more. */
export const GRPC_STATUS_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

const KIND_BY_GRPC_STATUS: Readonly<Record<string, A2aErrorKind>> = {
  INVALID_ARGUMENT: 'InvalidParams',
  NOT_FOUND: 'TaskNotFound',
  PERMISSION_DENIED: 'PermissionDenied',
  RESOURCE_EXHAUSTED: 'TooManyRequests',
  FAILED_PRECONDITION: 'UnsupportedOperation',
  UNIMPLEMENTED: 'MethodNotFound',
  UNAVAILABLE: 'Unavailable',
  UNAUTHENTICATED: 'Unauthenticated',
};

/** Where the error came from, for the error's context and message. */
export interface ErrorOrigin {
  readonly binding: ProtocolBinding;
  readonly url: string;
  /** `Retry-After` and `WWW-Authenticate` of the answer. */
  readonly retryAfterMs?: number;
  readonly challenges?: readonly string[];
}

/** A JSON-RPC `error` member (`{code, message, data}`), with the HTTP status it came with. */
export function jsonRpcProtocolError(error: unknown, httpStatus: number, origin: ErrorOrigin): A2aProtocolError {
  const object = isObject(error) ? error : {};
  const code = typeof object.code === 'number' ? object.code : undefined;
  const details = detailsOf(object.data);
  const kind =
    kindOfReason(details) ??
    (code === undefined ? undefined : KIND_BY_JSON_RPC.get(code)) ??
    KIND_BY_HTTP.get(httpStatus) ??
    'Internal';
  const message =
    typeof object.message === 'string' && object.message !== '' ? object.message : A2A_ERROR_CODES[kind].defaultMessage;
  return build(kind, message, { jsonRpcCode: code, httpStatus, details }, origin);
}

/**
 * An HTTP+JSON error: the `google.rpc.Status` body (`{"error":{code,status,message,details}}`) when there is one, else
 * the HTTP status alone (a proxy's 502, an HTML 404).
 */
export function restProtocolError(body: unknown, httpStatus: number, origin: ErrorOrigin): A2aProtocolError {
  const status = isObject(body) && isObject(body.error) ? body.error : {};
  const details = detailsOf(status.details);
  const grpcStatus = typeof status.status === 'string' ? status.status : undefined;
  const kind =
    kindOfReason(details) ??
    KIND_BY_HTTP.get(httpStatus) ??
    (grpcStatus ? KIND_BY_GRPC_STATUS[grpcStatus] : undefined) ??
    (httpStatus >= 500 ? 'Internal' : 'InvalidRequest');
  const message = typeof status.message === 'string' && status.message !== '' ? status.message : `HTTP ${httpStatus}`;
  return build(kind, message, { httpStatus, grpcStatus, details }, origin);
}

/** A gRPC status (code, message) and the details of its `grpc-status-details-bin` trailer, already as ProtoJSON. */
export function grpcProtocolError(
  code: number,
  message: string,
  details: ErrorDetail[],
  origin: ErrorOrigin,
): A2aProtocolError {
  const grpcStatus = GRPC_STATUS_NAMES[code] ?? 'UNKNOWN';
  const kind = kindOfReason(details) ?? KIND_BY_GRPC_STATUS[grpcStatus] ?? 'Internal';
  return build(kind, message || A2A_ERROR_CODES[kind].defaultMessage, { grpcCode: code, grpcStatus, details }, origin);
}

/** The kind an A2A ErrorInfo names; other domains' reasons count only when they are ours too (the module's 429/503). */
function kindOfReason(details: readonly ErrorDetail[]): A2aErrorKind | undefined {
  const info = details.find((detail) => detail['@type'] === ERROR_INFO_TYPE);
  return typeof info?.reason === 'string' ? KIND_BY_REASON.get(info.reason) : undefined;
}

function detailsOf(value: unknown): ErrorDetail[] {
  // A v0.3 agent's `data` is a free object; only `@type`d entries are details.
  if (!Array.isArray(value)) return [];
  return value.filter((detail): detail is ErrorDetail => isObject(detail) && typeof detail['@type'] === 'string');
}

function build(kind: A2aErrorKind, message: string, wire: A2aProtocolErrorWire, origin: ErrorOrigin): A2aProtocolError {
  return new A2aProtocolError(
    kind,
    message,
    { ...wire, retryAfterMs: origin.retryAfterMs, challenges: origin.challenges },
    { binding: origin.binding, url: origin.url },
  );
}

/** `Retry-After` as ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMsOf(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
