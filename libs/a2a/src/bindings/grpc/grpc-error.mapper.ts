import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import { GrpcException, RpcException } from '@nestjs/microservices';
import protobuf from 'protobufjs';
import { A2aError, type ErrorDetail } from '../../errors/a2a.error.js';
import { toA2aError } from '../../errors/to-a2a-error.js';
import type { ProtoJsonMapper } from './proto-json.mapper.js';

/** What a gRPC handler fails with: `@grpc/grpc-js` sends `code`, `details` and the trailers in `metadata`. */
export interface GrpcError {
  code: number;
  details: string;
  message: string;
  metadata?: Metadata;
}

/** The standard trailer carrying a serialized `google.rpc.Status` (§10.6, CHECKLIST §4). */
export const GRPC_STATUS_DETAILS_KEY = 'grpc-status-details-bin';

// What Nest's RPC context throws when a guard returns false (a ForbiddenException on HTTP).
const GUARD_REJECTED_MESSAGE = 'Forbidden resource';
const TYPE_URL_PREFIX = 'type.googleapis.com/';

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
        return { ...(error as GrpcError), message: exception.message, details: (error as Partial<GrpcError>).details ?? exception.message };
      }
      if (exception.message === GUARD_REJECTED_MESSAGE) return this.fromA2aError(new A2aError('PermissionDenied', exception.message));
      return this.plain(GrpcStatus.UNKNOWN, exception.message);
    }
    return this.fromA2aError(toA2aError(exception));
  }

  private fromA2aError(error: A2aError): GrpcError {
    const code = GrpcStatus[error.code.grpcStatus as keyof typeof GrpcStatus];
    const metadata = new Metadata();
    metadata.set(GRPC_STATUS_DETAILS_KEY, this.encodeStatus(code, error.message, error.details()));
    return { code, details: error.message, message: error.message, metadata };
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
