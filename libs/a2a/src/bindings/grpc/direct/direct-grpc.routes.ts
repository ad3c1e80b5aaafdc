import type { MethodDefinition, ServiceDefinition } from '@grpc/proto-loader';
import { A2A_OPERATIONS, type A2aOperation } from '../../a2a-operations.js';
import type { A2aGrpcProto } from '../a2a-grpc.proto.js';
import { A2A_GRPC_PACKAGE, A2A_GRPC_SERVICE } from '../a2a-proto.loader.js';
import type { NestGrpcHandler } from './direct-grpc.options.js';

/** An rpc of `lf.a2a.v1.A2AService` on the direct path. */
export interface DirectGrpcRoute {
  operation: A2aOperation;
  method: MethodDefinition<object, object>;
  /** Nest's handler, looked up at the first call: handlers are registered after the server is created. */
  handler?: NestGrpcHandler;
}

/** The A2A rpcs by their HTTP/2 `:path`, `/lf.a2a.v1.A2AService/<rpc>`. */
export function directGrpcRoutes(proto: A2aGrpcProto): Map<string, DirectGrpcRoute> {
  const service = proto.packageDefinition[`${A2A_GRPC_PACKAGE}.${A2A_GRPC_SERVICE}`] as ServiceDefinition;
  return new Map(
    A2A_OPERATIONS.map((operation) => [
      `/${A2A_GRPC_PACKAGE}.${A2A_GRPC_SERVICE}/${operation.name}`,
      { operation, method: service[operation.name] as MethodDefinition<object, object> },
    ]),
  );
}
