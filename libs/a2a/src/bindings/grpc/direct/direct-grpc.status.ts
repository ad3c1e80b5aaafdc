import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';

/** A gRPC status to answer with: what grpc-js makes of a handler's error (`serverErrorToStatus`). */
export interface CallStatus {
  code: number;
  details: string;
  metadata?: Metadata | null;
}

export const OK_STATUS: CallStatus = { code: GrpcStatus.OK, details: 'OK' };

/** grpc-js's reading of a handler's error (server-call.js `serverErrorToStatus`): its code when it has one, else UNKNOWN. */
export function statusOf(error: unknown): CallStatus {
  const fields = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    details?: unknown;
    message?: unknown;
    metadata?: unknown;
  };
  const metadata = fields.metadata instanceof Metadata ? fields.metadata : null;
  if (typeof fields.code === 'number' && Number.isInteger(fields.code)) {
    const details =
      typeof fields.details === 'string'
        ? fields.details
        : typeof fields.message === 'string'
          ? fields.message
          : 'Unknown Error';
    return { code: fields.code, details, metadata };
  }
  return {
    code: GrpcStatus.UNKNOWN,
    details: typeof fields.message === 'string' ? fields.message : 'Unknown Error',
    metadata,
  };
}
