import type { ServerCredentials } from '@grpc/grpc-js';

/**
 * The gRPC binding (§10): a Nest gRPC microservice serving `lf.a2a.v1.A2AService`, which `connectA2aGrpc(app)`
 * attaches to the app.
 */
export interface A2aGrpcOptions {
  /** Address the gRPC server binds, `host:port`, e.g. `0.0.0.0:50051`. */
  url: string;
  /** `host:port` the card advertises. Default: `url`, a wildcard host (`0.0.0.0`, `[::]`) read as `localhost`. */
  advertisedUrl?: string;
  /** Serve gRPC server reflection (v1 and v1alpha), so grpcurl and similar tools can list and call the service. Default true. */
  reflection?: boolean;
  /**
   * Server credentials: TLS in production (spec §7.1). Default insecure. For mutual TLS (an `mtlsScheme`): mandatory
   * with `ServerCredentials.createSsl(ca, [{ private_key, cert_chain }], true)` (a bad certificate fails the handshake:
   * UNAVAILABLE), optional with `optionalClientCertificateCredentials({ ca, key, cert })` (no or bad certificate:
   * UNAUTHENTICATED unless another scheme passes).
   */
  credentials?: ServerCredentials;
  /**
   * Serve the A2A rpcs straight from the HTTP/2 stream, past grpc-js's per-call machinery, through the same Nest
   * pipeline (guards, interceptors, pipes, filters). Their third handler argument is then a `DirectGrpcCall`: grpc-js's
   * `ServerUnaryCall` surface without `getMetricsRecorder()` (a server stream's call has no `write`/`end` either: its
   * messages are the Observable the handler returns). Compressed requests are served by grpc-js either way. Default
   * true; false serves every call through grpc-js.
   */
  directDispatch?: boolean;
}
