import { A2aMessages } from '../../a2a.messages.js';
import { GrpcPackagesMissingError } from '../../errors/grpc-packages-missing.error.js';
import { missingPackages, npmInstallCommand, type PackageResolver } from '../../optional-packages.js';

/**
 * The optional peers of the gRPC binding (`nestjs-a2a/grpc`), each with the range `npm i` installs: the README's
 * install line, within the peer ranges of `package.json`.
 */
export const GRPC_SERVER_PACKAGES: Readonly<Record<string, string>> = {
  '@grpc/grpc-js': '~1.14',
  '@grpc/proto-loader': '^0.8.1',
  '@grpc/reflection': '^1.0.4',
  '@nestjs/microservices': '^12',
  protobufjs: '^8.0.0',
};

/** What the client's gRPC transport needs: it serves nothing, so neither reflection nor Nest's microservices. */
export const GRPC_CLIENT_PACKAGES: Readonly<Record<string, string>> = Object.fromEntries(
  ['@grpc/grpc-js', '@grpc/proto-loader', 'protobufjs'].map((name) => [name, GRPC_SERVER_PACKAGES[name]]),
);

/**
 * Throws {@link GrpcPackagesMissingError}, naming every one of `packages` that is not installed and the `npm i` that
 * installs them, before anything imports one of them (which would fail on the first alone, with Node's bare
 * `ERR_MODULE_NOT_FOUND`). `feature` opens the message.
 */
export function assertGrpcPackages(
  feature: string,
  packages: Readonly<Record<string, string>>,
  resolve?: PackageResolver,
): void {
  const needed = Object.keys(packages);
  const missing = missingPackages(needed, resolve);
  if (missing.length === 0) return;
  const command = npmInstallCommand(Object.fromEntries(missing.map((name) => [name, packages[name]])));
  throw new GrpcPackagesMissingError(A2aMessages.grpcPackagesMissing(feature, needed, missing, command), missing);
}
