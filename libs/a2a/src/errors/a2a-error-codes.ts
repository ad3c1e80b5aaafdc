/**
 * Every error the module can answer with, and how each binding spells it (spec §5.4).
 * One table, so the JSON-RPC, HTTP+JSON and (later) gRPC bindings cannot drift apart (spec §5.1).
 */
export type A2aErrorKind =
  | 'TaskNotFound'
  | 'TaskNotCancelable'
  | 'PushNotificationNotSupported'
  | 'UnsupportedOperation'
  | 'ContentTypeNotSupported'
  | 'InvalidAgentResponse'
  | 'ExtendedAgentCardNotConfigured'
  | 'ExtensionSupportRequired'
  | 'VersionNotSupported'
  | 'ParseError'
  | 'InvalidRequest'
  | 'MethodNotFound'
  | 'MethodNotAllowed'
  | 'InvalidParams'
  | 'PayloadTooLarge'
  | 'UnsupportedMediaType'
  | 'Unauthenticated'
  | 'PermissionDenied'
  | 'TooManyRequests'
  | 'Unavailable'
  | 'Internal';

/** How one A2A error kind is written on each binding (spec §5.4). */
export interface A2aErrorCode {
  /** JSON-RPC `error.code`. */
  jsonRpc: number;
  /** HTTP status of the HTTP+JSON binding. */
  http: number;
  /** google.rpc canonical status name, also the HTTP+JSON body's `error.status`. */
  grpcStatus: string;
  /** `google.rpc.ErrorInfo.reason`: every error carries one (spec §9.5, §10.6, §11.6), so clients can branch on it. */
  reason: string;
  /** Message used when the thrower gives none. */
  defaultMessage: string;
}

export const A2A_ERROR_DOMAIN = 'a2a-protocol.org';

export const A2A_ERROR_CODES: Readonly<Record<A2aErrorKind, A2aErrorCode>> = {
  TaskNotFound: {
    jsonRpc: -32001,
    http: 404,
    grpcStatus: 'NOT_FOUND',
    reason: 'TASK_NOT_FOUND',
    defaultMessage: 'Task not found',
  },
  TaskNotCancelable: {
    jsonRpc: -32002,
    http: 400,
    grpcStatus: 'FAILED_PRECONDITION',
    reason: 'TASK_NOT_CANCELABLE',
    defaultMessage: 'Task cannot be canceled',
  },
  PushNotificationNotSupported: {
    jsonRpc: -32003,
    http: 400,
    grpcStatus: 'FAILED_PRECONDITION',
    reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
    defaultMessage: 'Push notifications are not supported',
  },
  UnsupportedOperation: {
    jsonRpc: -32004,
    http: 400,
    grpcStatus: 'FAILED_PRECONDITION',
    reason: 'UNSUPPORTED_OPERATION',
    defaultMessage: 'This operation is not supported',
  },
  ContentTypeNotSupported: {
    jsonRpc: -32005,
    http: 400,
    grpcStatus: 'INVALID_ARGUMENT',
    reason: 'CONTENT_TYPE_NOT_SUPPORTED',
    defaultMessage: 'Incompatible content types',
  },
  InvalidAgentResponse: {
    jsonRpc: -32006,
    http: 500,
    grpcStatus: 'INTERNAL',
    reason: 'INVALID_AGENT_RESPONSE',
    defaultMessage: 'Invalid agent response',
  },
  ExtendedAgentCardNotConfigured: {
    jsonRpc: -32007,
    http: 400,
    grpcStatus: 'FAILED_PRECONDITION',
    reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
    defaultMessage: 'Extended agent card is not configured',
  },
  ExtensionSupportRequired: {
    jsonRpc: -32008,
    http: 400,
    grpcStatus: 'FAILED_PRECONDITION',
    reason: 'EXTENSION_SUPPORT_REQUIRED',
    defaultMessage: 'A required extension was not requested',
  },
  VersionNotSupported: {
    jsonRpc: -32009,
    http: 400,
    grpcStatus: 'FAILED_PRECONDITION',
    reason: 'VERSION_NOT_SUPPORTED',
    defaultMessage: 'Protocol version not supported',
  },
  ParseError: {
    jsonRpc: -32700,
    http: 400,
    grpcStatus: 'INVALID_ARGUMENT',
    reason: 'PARSE_ERROR',
    defaultMessage: 'Invalid JSON payload',
  },
  InvalidRequest: {
    jsonRpc: -32600,
    http: 400,
    grpcStatus: 'INVALID_ARGUMENT',
    reason: 'INVALID_REQUEST',
    defaultMessage: 'Request payload validation error',
  },
  MethodNotFound: {
    jsonRpc: -32601,
    http: 404,
    grpcStatus: 'UNIMPLEMENTED',
    reason: 'METHOD_NOT_FOUND',
    defaultMessage: 'Method not found',
  },
  // An HTTP method a route of the HTTP bindings does not serve; `Allow` lists those it does.
  MethodNotAllowed: {
    jsonRpc: -32600,
    http: 405,
    grpcStatus: 'UNIMPLEMENTED',
    reason: 'METHOD_NOT_ALLOWED',
    defaultMessage: 'Method not allowed',
  },
  InvalidParams: {
    jsonRpc: -32602,
    http: 400,
    grpcStatus: 'INVALID_ARGUMENT',
    reason: 'INVALID_PARAMS',
    defaultMessage: 'Invalid parameters',
  },
  PayloadTooLarge: {
    jsonRpc: -32600,
    http: 413,
    grpcStatus: 'RESOURCE_EXHAUSTED',
    reason: 'PAYLOAD_TOO_LARGE',
    defaultMessage: 'Request body is too large',
  },
  // A request to an HTTP binding whose Content-Type is not JSON (see bindings/http/json-media-type.ts). Not the
  // spec's ContentTypeNotSupported, which is about the media types of message parts.
  UnsupportedMediaType: {
    jsonRpc: -32600,
    http: 415,
    grpcStatus: 'INVALID_ARGUMENT',
    reason: 'UNSUPPORTED_MEDIA_TYPE',
    defaultMessage: 'Requests must be sent with Content-Type application/json or application/a2a+json',
  },
  // Auth failures come from the user's guards. Their JSON-RPC codes lie outside the -32768…-32000 that JSON-RPC 2.0
  // reserves, which holds A2A's own -32001…-32099 (spec §9.5).
  Unauthenticated: {
    jsonRpc: -31401,
    http: 401,
    grpcStatus: 'UNAUTHENTICATED',
    reason: 'UNAUTHENTICATED',
    defaultMessage: 'Authentication required',
  },
  PermissionDenied: {
    jsonRpc: -31403,
    http: 403,
    grpcStatus: 'PERMISSION_DENIED',
    reason: 'PERMISSION_DENIED',
    defaultMessage: 'Permission denied',
  },
  // From the app's rate limiter (e.g. @nestjs/throttler) or a 503 it throws: clients back off on the status and on the
  // Retry-After header the thrower set, so both keep their meaning on every binding. JSON-RPC codes beside the auth ones.
  TooManyRequests: {
    jsonRpc: -31429,
    http: 429,
    grpcStatus: 'RESOURCE_EXHAUSTED',
    reason: 'TOO_MANY_REQUESTS',
    defaultMessage: 'Too many requests',
  },
  Unavailable: {
    jsonRpc: -31503,
    http: 503,
    grpcStatus: 'UNAVAILABLE',
    reason: 'UNAVAILABLE',
    defaultMessage: 'Service unavailable',
  },
  Internal: {
    jsonRpc: -32603,
    http: 500,
    grpcStatus: 'INTERNAL',
    reason: 'INTERNAL',
    defaultMessage: 'Internal error',
  },
};
