import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import { GrpcException, RpcException } from '@nestjs/microservices';
import protobuf from 'protobufjs';
import { A2aError, type ErrorDetail } from '../../errors/a2a.error.js';
import { toA2aError } from '../../errors/to-a2a-error.js';
import type { ProtoJsonMapper } from './proto-json/proto-json.mapper.js';

/** What a gRPC handler fails with: `@grpc/grpc-js` sends `code`, `details` and the trailers in `metadata`. */
export interface GrpcError {
  code: number;
  details: string;
  message: string;
  metadata?: Metadata;
}

/** The standard trailer carrying a serialized `google.rpc.Status` (spec §10.6). */
export const GRPC_STATUS_DETAILS_KEY = 'grpc-status-details-bin';

// What Nest's RPC context throws when a guard returns false (a ForbiddenException on HTTP).
const GUARD_REJECTED_MESSAGE = 'Forbidden resource';
const TYPE_URL_PREFIX = 'type.googleapis.com/';
/** `grpc-message` is percent-encoded (up to 9 characters per non-ASCII character): 512 bytes stay under 4.5 KiB. */
const MAX_MESSAGE_BYTES = 512;
/** The binary status, base64 in the trailer (4/3 of this), beside the message: together well under 8 KiB. */
const MAX_STATUS_DETAILS_BYTES = 2048;
const MAX_TRIMMED_VIOLATIONS = 16;

/**
 * Turns whatever a gRPC call failed with into the error `@grpc/grpc-js` answers with. A2A errors (and HttpExceptions
 * from guards, which keep their meaning: 401 → UNAUTHENTICATED, 403 → PERMISSION_DENIED) get the status code of the
 * shared error table and a `google.rpc.Status` in `grpc-status-details-bin` holding their ErrorInfo (reason, domain)
 * and, for validation errors, a BadRequest. Errors the app already shaped for gRPC (Nest's GrpcException, or an
 * RpcException whose error has a numeric `code`) pass through unchanged.
 */
export class GrpcErrorMapper {
  private readonly status: protobuf.Type;

  constructor(
    root: protobuf.Root,
    private readonly json: ProtoJsonMapper,
  ) {
    this.status = root.lookupType('google.rpc.Status');
  }

  toGrpcError(exception: unknown): GrpcError {
    if (exception instanceof GrpcException) return this.plain(exception.getCode(), exception.message);
    if (exception instanceof RpcException) {
      const error = exception.getError();
      if (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'number') {
        return {
          ...(error as GrpcError),
          message: exception.message,
          details: (error as Partial<GrpcError>).details ?? exception.message,
        };
      }
      if (exception.message === GUARD_REJECTED_MESSAGE)
        return this.fromA2aError(new A2aError('PermissionDenied', exception.message));
      return this.plain(GrpcStatus.UNKNOWN, exception.message);
    }
    return this.fromA2aError(toA2aError(exception));
  }

  /**
   * The error with its details trimmed to fit the trailers: messages and ids echo client input (a 20,000-character
   * task id), and grpc-js clients drop a call whose metadata exceeds 8 KiB, so it would reach the client as a
   * timeout. The message is cut to {@link MAX_MESSAGE_BYTES}; then, while the encoded status is over budget, field
   * violations go from the last, then ErrorInfo's metadata.
   */
  private fromA2aError(error: A2aError): GrpcError {
    const code = GrpcStatus[error.code.grpcStatus as keyof typeof GrpcStatus];
    const message = truncateUtf8(error.message, MAX_MESSAGE_BYTES);
    let details = error.details();
    let status = this.encodeStatus(code, message, details);
    while (status.length > MAX_STATUS_DETAILS_BYTES) {
      const smaller = shrink(details);
      if (!smaller) break;
      details = smaller;
      status = this.encodeStatus(code, message, details);
    }
    const metadata = new Metadata();
    metadata.set(GRPC_STATUS_DETAILS_KEY, status);
    for (const [name, value] of Object.entries(error.headers)) {
      for (const entry of typeof value === 'string' ? [value] : value) metadata.add(name.toLowerCase(), entry);
    }
    return { code, details: message, message, metadata };
  }

  private plain(code: number, message: string): GrpcError {
    return { code, details: message, message };
  }

  /** `google.rpc.Status` with each ProtoJSON detail packed as an `Any`. */
  private encodeStatus(code: number, message: string, details: ErrorDetail[]): Buffer {
    const packed = details.map(({ '@type': typeUrl, ...fields }) => ({
      type_url: typeUrl,
      value: this.encode(typeUrl.slice(TYPE_URL_PREFIX.length), fields),
    }));
    return Buffer.from(this.status.encode(this.status.fromObject({ code, message, details: packed })).finish());
  }

  private encode(typeName: string, json: object): Uint8Array {
    const type = this.status.root.lookupType(typeName);
    return type.encode(type.fromObject(this.json.fromProtoJson(typeName, json))).finish();
  }
}

/** `text` cut at a character boundary to at most `maxBytes` of UTF-8, with an ellipsis when cut. */
function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let bytes = 3; // the ellipsis
  let end = 0;
  for (const char of text) {
    bytes += Buffer.byteLength(char);
    if (bytes > maxBytes) break;
    end += char.length;
  }
  return `${text.slice(0, end)}…`;
}

/** One step smaller: the last field violation dropped, else ErrorInfo's metadata; undefined when nothing is left. */
function shrink(details: ErrorDetail[]): ErrorDetail[] | undefined {
  const badRequest = details.find((detail) => Array.isArray(detail.fieldViolations));
  if (badRequest) {
    const violations = badRequest.fieldViolations as unknown[];
    if (violations.length <= 1) return details.filter((detail) => detail !== badRequest);
    // A first big step, so that thousands of violations cost a few encodings, not thousands.
    const kept = violations.length > MAX_TRIMMED_VIOLATIONS ? MAX_TRIMMED_VIOLATIONS : violations.length - 1;
    return details.map((detail) =>
      detail === badRequest ? { ...detail, fieldViolations: violations.slice(0, kept) } : detail,
    );
  }
  const withMetadata = details.find((detail) => detail.metadata !== undefined);
  if (!withMetadata) return undefined;
  return details.map((detail) => {
    if (detail !== withMetadata) return detail;
    const { metadata: _dropped, ...rest } = detail;
    return rest as ErrorDetail;
  });
}
