import type { Metadata } from '@grpc/grpc-js';
import type { LoggerService } from '@nestjs/common';
import type { A2aObservability } from '../../../observability/a2a-observability.js';
import type { ValidationLimits } from '../../../protocol/request.validator.js';
import type { A2aGrpcProto } from '../a2a-grpc.proto.js';

/** A handler as Nest's gRPC server registers it: the app's guards, interceptors, pipes and filters around the rpc. */
export type NestGrpcHandler = (data: unknown, metadata: Metadata, call: object) => unknown;

export interface DirectGrpcOptions {
  proto: A2aGrpcProto;
  limits: () => ValidationLimits;
  negotiate: (requested: readonly string[]) => readonly string[];
  /** Largest request message accepted, in bytes (grpc-js's `grpc.max_receive_message_length`). */
  maxReceiveBytes: number;
  observability: A2aObservability;
  /** Nest's handler of an rpc of `lf.a2a.v1.A2AService`. */
  handlerOf: (rpc: string) => NestGrpcHandler | undefined;
  /** Where a call that fails unexpectedly is reported. */
  logger: Pick<LoggerService, 'error'>;
}
