import type { A2aErrorKind } from '../errors/a2a-error-codes.js';
import type { ErrorDetail, FieldViolation } from '../errors/a2a.error.js';
import type { ProtocolBinding } from '../protocol/a2a.types.js';

/**
 * What went wrong, in one word: a protocol error the agent answered with (the server's own table, `A2aErrorKind`:
 * `TaskNotFound`, `Unauthenticated`, `Unavailable`…), or one the client found itself.
 */
export type A2aClientErrorKind =
  | A2aErrorKind
  /** The connection failed or broke (refused, reset, DNS); the call may be retried. */
  | 'Network'
  /** No answer within the call's `timeoutMs`. */
  | 'Timeout'
  /** The caller's AbortSignal fired. */
  | 'Aborted'
  /** The SSRF guard refused a URL or an address: nothing was sent. */
  | 'AddressRefused'
  /** The agent answered something that is not A2A 1.0 (wrong shape, too large, not JSON). */
  | 'InvalidResponse'
  /** The agent card could not be fetched, or is not a valid AgentCard. */
  | 'CardUnavailable'
  | 'InvalidCard'
  /** The options pin signing keys and no signature of the card verifies against them (or it has none). */
  | 'CardVerificationFailed'
  /** No interface of the card uses a binding and protocol version this client speaks. */
  | 'NoCompatibleInterface'
  /** The gRPC interface was chosen but its optional peers are not installed. */
  | 'TransportUnavailable'
  /** A credential could not be obtained (OAuth2 token endpoint, provider function). */
  | 'Credentials'
  /**
   * The client refused to send its credentials where the card points: an interface outside the credential scope, an
   * OAuth2 token URL the options do not give, an API key placement the options do not allow. Nothing was sent.
   */
  | 'CredentialsRefused';

/** Where a client error happened: the binding and the URL called, when known. */
export interface A2aClientErrorContext {
  readonly binding?: ProtocolBinding;
  readonly url?: string;
  readonly cause?: unknown;
}

/**
 * Every error the A2A client throws (or an Observable of it errors with). Branch on `kind`, or on the subclass:
 * {@link A2aProtocolError} (the agent answered with an error), {@link A2aCardError} and
 * {@link A2aCardVerificationError}, {@link A2aAddressRefusedError}, {@link A2aCredentialsRefusedError},
 * {@link A2aTransportError} (network, timeout, invalid answer).
 */
export class A2aClientError extends Error {
  override readonly name: string = 'A2aClientError';
  /** The binding of the call, when the error comes from one. */
  readonly binding?: ProtocolBinding;
  /** The URL (or gRPC address) called. */
  readonly url?: string;

  constructor(
    readonly kind: A2aClientErrorKind,
    message: string,
    context: A2aClientErrorContext = {},
  ) {
    super(message, context.cause === undefined ? undefined : { cause: context.cause });
    this.binding = context.binding;
    this.url = context.url;
  }

  /**
   * Whether repeating the same call may succeed: network failures, timeouts, and the agent's Unavailable (HTTP 503,
   * gRPC UNAVAILABLE). The client retries these itself for idempotent calls.
   */
  get retryable(): boolean {
    return this.kind === 'Network' || this.kind === 'Timeout' || this.kind === 'Unavailable';
  }
}

/** How the agent spelled a protocol error on its binding. */
export interface A2aProtocolErrorWire {
  /** JSON-RPC `error.code`. */
  readonly jsonRpcCode?: number;
  /** HTTP status of the response. */
  readonly httpStatus?: number;
  /** gRPC status code (numeric) and its canonical name (also the HTTP+JSON body's `error.status`). */
  readonly grpcCode?: number;
  readonly grpcStatus?: string;
  /** Every `google.rpc` detail of the error, as ProtoJSON with `@type`. */
  readonly details?: readonly ErrorDetail[];
  /** `Retry-After` of an HTTP answer (or gRPC trailer), in ms. */
  readonly retryAfterMs?: number;
  /** `WWW-Authenticate` challenges of a 401 / UNAUTHENTICATED. */
  readonly challenges?: readonly string[];
}

/**
 * The agent answered with an A2A error (spec §5.4): `kind` comes from `google.rpc.ErrorInfo.reason` when the agent
 * sent one (every A2A 1.0 agent should), else from the JSON-RPC code, HTTP status or gRPC status. The rest of the
 * protocol error travels with it: `reason`, `errorInfo` (its `metadata`, e.g. `taskId`), `fieldViolations` of a
 * `google.rpc.BadRequest`, every detail, and the binding's own code.
 */
export class A2aProtocolError extends A2aClientError {
  override readonly name: string = 'A2aProtocolError';
  declare readonly kind: A2aErrorKind;
  /** `google.rpc.ErrorInfo.reason` (e.g. `TASK_NOT_FOUND`), when sent. */
  readonly reason?: string;
  /** `google.rpc.ErrorInfo.domain` (`a2a-protocol.org` for A2A errors). */
  readonly domain?: string;
  /** `google.rpc.ErrorInfo.metadata`, e.g. `{ taskId }`. */
  readonly errorInfo: Readonly<Record<string, string>>;
  /** `google.rpc.BadRequest.fieldViolations`, for validation errors. */
  readonly fieldViolations: readonly FieldViolation[];
  readonly details: readonly ErrorDetail[];
  readonly jsonRpcCode?: number;
  readonly httpStatus?: number;
  readonly grpcCode?: number;
  readonly grpcStatus?: string;
  readonly retryAfterMs?: number;
  readonly challenges: readonly string[];

  constructor(kind: A2aErrorKind, message: string, wire: A2aProtocolErrorWire, context: A2aClientErrorContext = {}) {
    super(kind, message, context);
    const details = wire.details ?? [];
    const info = details.find((detail) => detail['@type'] === ERROR_INFO_TYPE);
    this.reason = typeof info?.reason === 'string' ? info.reason : undefined;
    this.domain = typeof info?.domain === 'string' ? info.domain : undefined;
    this.errorInfo = stringRecord(info?.metadata);
    const badRequest = details.find((detail) => detail['@type'] === BAD_REQUEST_TYPE);
    this.fieldViolations = Array.isArray(badRequest?.fieldViolations)
      ? (badRequest.fieldViolations as FieldViolation[])
      : [];
    this.details = details;
    this.jsonRpcCode = wire.jsonRpcCode;
    this.httpStatus = wire.httpStatus;
    this.grpcCode = wire.grpcCode;
    this.grpcStatus = wire.grpcStatus;
    this.retryAfterMs = wire.retryAfterMs;
    this.challenges = wire.challenges ?? [];
  }
}

/** The agent card could not be fetched (`CardUnavailable`), is not an AgentCard (`InvalidCard`), or offers no usable interface. */
export class A2aCardError extends A2aClientError {
  override readonly name: string = 'A2aCardError';
  declare readonly kind: 'CardUnavailable' | 'InvalidCard' | 'CardVerificationFailed' | 'NoCompatibleInterface';
}

/** The agent's options pin signing keys, and the card is unsigned or no signature verifies (spec §8.4.3). */
export class A2aCardVerificationError extends A2aCardError {
  override readonly name: string = 'A2aCardVerificationError';
  declare readonly kind: 'CardVerificationFailed';

  constructor(message: string, context: A2aClientErrorContext = {}) {
    super('CardVerificationFailed', message, context);
  }
}

/** The SSRF guard refused a URL or the address it resolves or connects to, before anything was sent there. */
export class A2aAddressRefusedError extends A2aClientError {
  override readonly name: string = 'A2aAddressRefusedError';
  declare readonly kind: 'AddressRefused';

  constructor(message: string, context: A2aClientErrorContext = {}) {
    super('AddressRefused', message, context);
  }
}

/**
 * The card asks for the client's credentials somewhere the options do not allow (see `A2aClientCredentials`); the
 * message names the option that would allow it. Nothing was sent.
 */
export class A2aCredentialsRefusedError extends A2aClientError {
  override readonly name: string = 'A2aCredentialsRefusedError';
  declare readonly kind: 'CredentialsRefused';

  constructor(message: string, context: A2aClientErrorContext = {}) {
    super('CredentialsRefused', message, context);
  }
}

/** The call did not get a usable answer: the network, a timeout, an abort, an answer that is not A2A, or a missing transport. */
export class A2aTransportError extends A2aClientError {
  override readonly name: string = 'A2aTransportError';
  declare readonly kind: 'Network' | 'Timeout' | 'Aborted' | 'InvalidResponse' | 'TransportUnavailable' | 'Credentials';
  /**
   * For `Network`: the connection was never established (refused, unreachable, DNS), so nothing reached the agent and
   * another interface may be tried whatever the operation.
   */
  readonly connectFailed: boolean;

  constructor(
    kind: A2aTransportError['kind'],
    message: string,
    context: A2aClientErrorContext & { connectFailed?: boolean } = {},
  ) {
    super(kind, message, context);
    this.connectFailed = context.connectFailed === true;
  }
}

/** The client's options cannot work as written. */
export class A2aClientOptionsError extends Error {
  override readonly name = 'A2aClientOptionsError';
}

/** `@type` of the `google.rpc.ErrorInfo` detail. */
export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
/** `@type` of the `google.rpc.BadRequest` detail (field violations). */
export const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/** The agent refused the call's credentials: a fresh credential (a token source) may be worth one more try. */
export function isUnauthenticated(error: unknown): boolean {
  return error instanceof A2aProtocolError && error.kind === 'Unauthenticated';
}
