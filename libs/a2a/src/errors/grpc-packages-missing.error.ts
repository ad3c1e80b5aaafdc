/**
 * The gRPC binding (`nestjs-a2a/grpc`) or a gRPC interface of the client is used, and some of its optional peers are
 * not installed. Exported by the core entry point, which loads without them, so that it can be caught by type.
 */
export class GrpcPackagesMissingError extends Error {
  override readonly name = 'GrpcPackagesMissingError';

  constructor(
    message: string,
    /** The packages that are not installed. */
    readonly missing: readonly string[],
  ) {
    super(message);
  }
}
