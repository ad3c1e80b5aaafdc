/**
 * `nestjs-a2a/grpc`: the gRPC binding, an entry point of its own so that HTTP-only apps need none of its packages.
 *
 * ```ts
 * A2aModule.forRoot({ card, bindings: [grpcBinding({ url: '0.0.0.0:50051' })] })   // in your module
 * connectA2aGrpc(app); await app.startAllMicroservices();                            // in main.ts, before listen()
 * ```
 */
export { grpcBinding, type A2aGrpcAsyncOptions } from './bindings/grpc/grpc-binding.js';
export type { A2aGrpcOptions } from './bindings/grpc/grpc-options.js';
export { connectA2aGrpc } from './bindings/grpc/connect-a2a-grpc.js';
export { optionalClientCertificateCredentials, type GrpcTlsIdentity } from './bindings/grpc/grpc-mtls.credentials.js';
