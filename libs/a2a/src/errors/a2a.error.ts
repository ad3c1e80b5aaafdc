import { A2A_ERROR_CODES, A2A_ERROR_DOMAIN, type A2aErrorKind } from './a2a-error-codes.js';

/** One offending field of a request, reported as a `google.rpc.BadRequest` field violation. */
export interface FieldViolation {
  field: string;
  description: string;
}

/** A `google.rpc.Status` detail in ProtoJSON form (`@type` plus the message's fields). */
export type ErrorDetail = { '@type': string } & Record<string, unknown>;

/**
 * A protocol error: thrown by the engine and by skills, turned into the binding's own shape by the binding's exception
 * filter. The message is safe to send to the caller; never put internals in it.
 */
export class A2aError extends Error {
  constructor(
    readonly kind: A2aErrorKind,
    message?: string,
    /** Values for `ErrorInfo.metadata` (strings only, per google.rpc.ErrorInfo). */
    readonly metadata: Record<string, string> = {},
    readonly fieldViolations: FieldViolation[] = [],
    /**
     * Response headers the error must carry: `WWW-Authenticate` on a 401, `Retry-After` on a 503. HTTP bindings send
     * them as headers, gRPC as trailing metadata (lowercased).
     */
    readonly headers: Readonly<Record<string, string | readonly string[]>> = {},
  ) {
    super(message ?? A2A_ERROR_CODES[kind].defaultMessage);
    this.name = `${kind}Error`;
  }

  get code() {
    return A2A_ERROR_CODES[this.kind];
  }

  /** `ErrorInfo` (when the error has a reason) and `BadRequest` (when it has field violations), as ProtoJSON `Any`s. */
  details(): ErrorDetail[] {
    const details: ErrorDetail[] = [];
    const reason = this.code.reason;
    if (reason) {
      const info: ErrorDetail = {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason,
        domain: A2A_ERROR_DOMAIN,
      };
      if (Object.keys(this.metadata).length > 0) info.metadata = this.metadata;
      details.push(info);
    }
    if (this.fieldViolations.length > 0) {
      details.push({ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: this.fieldViolations });
    }
    return details;
  }

  /** TaskNotFound for `taskId`: what a caller gets for a task that does not exist or is not theirs. */
  static taskNotFound(taskId: string) {
    return new A2aError('TaskNotFound', `Task ${taskId} not found`, { taskId });
  }

  /** InvalidParams listing each field that is wrong (a `BadRequest` detail on the wire). */
  static invalidParams(violations: FieldViolation[]) {
    const message = violations.map((v) => `${v.field}: ${v.description}`).join('; ');
    return new A2aError('InvalidParams', `Invalid parameters: ${message}`, {}, violations);
  }
}
