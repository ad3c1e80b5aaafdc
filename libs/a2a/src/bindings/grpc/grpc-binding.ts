import type { Provider, Type } from '@nestjs/common';
import type { A2aGrpcOptions } from '../../a2a-module.options.js';
import { A2aGrpcProto } from './a2a-grpc.proto.js';
import { A2A_GRPC_ENDPOINT, grpcEndpoint } from './grpc-endpoint.js';
import { A2aGrpcController } from './grpc.controller.js';
import { A2aGrpcTransport } from './grpc.transport.js';

/** What the gRPC binding adds to A2aModule when `grpc` is set. */
export function grpcBindingParts(options: A2aGrpcOptions): { controllers: Type[]; providers: Provider[] } {
  return {
    controllers: [A2aGrpcController],
    providers: [A2aGrpcProto, A2aGrpcTransport, { provide: A2A_GRPC_ENDPOINT, useValue: grpcEndpoint(options) }],
  };
}
