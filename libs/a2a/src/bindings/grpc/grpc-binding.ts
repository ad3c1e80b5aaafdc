import type { FactoryProvider } from '@nestjs/common';
import type { A2aBindingPlugin } from '../binding-plugin.js';
import { A2aGrpcProto } from './a2a-grpc.proto.js';
import { A2A_GRPC_ENDPOINT, grpcEndpoint } from './grpc-endpoint.js';
import type { A2aGrpcOptions } from './grpc-options.js';
import { createGrpcController } from './grpc.controller.js';
import { A2aGrpcTransport } from './grpc.transport.js';

/**
 * The gRPC options from a factory, e.g. a ConfigService; `inject` must be resolvable in A2aModule (its `imports`).
 * `Args`: the factory's parameters, what `inject` resolves to.
 */
export interface A2aGrpcAsyncOptions<Args extends unknown[] = never[]> {
  /** Returns the gRPC options; its parameters are what `inject` resolves to. */
  useFactory: (...args: Args) => A2aGrpcOptions | Promise<A2aGrpcOptions>;
  inject?: FactoryProvider['inject'];
}

/**
 * The gRPC binding (§10) for `A2aModule.forRoot({ …, bindings: [grpcBinding({ url: '0.0.0.0:50051' })] })`: the
 * `lf.a2a.v1.A2AService` rpcs as a Nest gRPC microservice over the same engine, which `connectA2aGrpc(app)` attaches.
 * Its packages (`@grpc/grpc-js`, `@nestjs/microservices`, `@grpc/proto-loader`, `@grpc/reflection`, `protobufjs`) are
 * needed only by apps that import this entry point.
 */
export function grpcBinding<Args extends unknown[]>(
  options: A2aGrpcOptions | A2aGrpcAsyncOptions<Args>,
): A2aBindingPlugin {
  const endpoint: FactoryProvider =
    'useFactory' in options
      ? {
          provide: A2A_GRPC_ENDPOINT,
          useFactory: async (...args: Args) => grpcEndpoint(await options.useFactory(...args)),
          inject: options.inject,
        }
      : { provide: A2A_GRPC_ENDPOINT, useFactory: () => grpcEndpoint(options) };
  return {
    protocolBinding: 'GRPC',
    controllers: [createGrpcController()],
    providers: [A2aGrpcProto, A2aGrpcTransport, endpoint],
  };
}
