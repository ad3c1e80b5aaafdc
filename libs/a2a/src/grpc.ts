import { assertGrpcPackages, GRPC_SERVER_PACKAGES } from './bindings/grpc/grpc-packages.check.js';

/**
 * `nestjs-a2a/grpc`: the gRPC binding, an entry point of its own so that HTTP-only apps need none of its packages.
 *
 * ```ts
 * A2aModule.forRoot({ card, bindings: [grpcBinding({ url: '0.0.0.0:50051' })] })   // in your module
 * connectA2aGrpc(app); await app.startAllMicroservices();                            // in main.ts, before listen()
 * ```
 *
 * Importing it without its optional peers throws `GrpcPackagesMissingError` (exported by `nestjs-a2a`), which names
 * every missing package and the `npm i` that installs them; so the binding's modules, which import those packages,
 * are loaded only after that check.
 */
export type { A2aGrpcAsyncOptions } from './bindings/grpc/grpc-binding.js';
export type { A2aGrpcOptions } from './bindings/grpc/grpc-options.js';
export type { GrpcTlsIdentity } from './bindings/grpc/grpc-mtls.credentials.js';

assertGrpcPackages('nestjs-a2a/grpc', GRPC_SERVER_PACKAGES);

// One after the other: Jest's ESM runtime fails on concurrent imports that share a dependency.
const binding = await import('./bindings/grpc/grpc-binding.js');
const connect = await import('./bindings/grpc/connect-a2a-grpc.js');
const credentials = await import('./bindings/grpc/grpc-mtls.credentials.js');

/**
 * The gRPC binding (§10) for `A2aModule.forRoot({ …, bindings: [grpcBinding({ url: '0.0.0.0:50051' })] })`: the
 * `lf.a2a.v1.A2AService` rpcs as a Nest gRPC microservice over the same engine, which `connectA2aGrpc(app)` attaches.
 */
export const grpcBinding = binding.grpcBinding;
/**
 * Attaches the gRPC binding to a Nest app as a hybrid microservice; start it with `app.startAllMicroservices()` (before
 * `app.listen()`). The app's global guards, interceptors, pipes and filters run on gRPC calls too.
 */
export const connectA2aGrpc = connect.connectA2aGrpc;
/**
 * Server credentials for optional mutual TLS on the gRPC binding: the server asks for a client certificate but also
 * completes the handshake without one, so the mtls scheme sees no certificate and another scheme may pass.
 */
export const optionalClientCertificateCredentials = credentials.optionalClientCertificateCredentials;
