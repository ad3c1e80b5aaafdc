import { readFileSync } from 'node:fs';
import {
  assertGrpcPackages,
  GRPC_CLIENT_PACKAGES,
  GRPC_SERVER_PACKAGES,
} from '../../../libs/a2a/src/bindings/grpc/grpc-packages.check.js';
import { GrpcPackagesMissingError } from '../../../libs/a2a/src/index.js';
import { missingPackages, type PackageResolver } from '../../../libs/a2a/src/optional-packages.js';
import { installLines } from '../../fixtures/packed-app.js';

/**
 * Using the gRPC binding, or a gRPC interface of the client, without its optional peers fails once, naming every
 * missing package and the `npm i` that installs them (rather than Node's ERR_MODULE_NOT_FOUND for the first one).
 */

const notFound = (specifier: string) =>
  Object.assign(new Error(`Cannot find package '${specifier}'`), { code: 'ERR_MODULE_NOT_FOUND' });

/** A resolver for an app where only `installed` are in node_modules. */
const onlyInstalled =
  (...installed: string[]): PackageResolver =>
  (specifier) => {
    if (installed.includes(specifier)) return `file:///app/node_modules/${specifier}/index.js`;
    throw notFound(specifier);
  };

describe('missingPackages', () => {
  it('names every package that does not resolve, in the order given', () => {
    expect(missingPackages(['a', 'b', 'c', 'd'], onlyInstalled('b', 'd'))).toEqual(['a', 'c']);
    expect(missingPackages(['a', 'b'], onlyInstalled('a', 'b'))).toEqual([]);
  });

  it('counts a package without a "." export as installed, and throws any other resolution error', () => {
    const noRootExport: PackageResolver = () => {
      throw Object.assign(new Error('No "exports" main defined'), { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' });
    };
    expect(missingPackages(['types-only'], noRootExport)).toEqual([]);
    const broken: PackageResolver = () => {
      throw Object.assign(new Error('Invalid package config'), { code: 'ERR_INVALID_PACKAGE_CONFIG' });
    };
    expect(() => missingPackages(['broken'], broken)).toThrow('Invalid package config');
  });

  it('resolves from the library, without loading anything: an installed package is found, an absent one is not', () => {
    expect(missingPackages(['rxjs', 'nestjs-a2a-no-such-package'])).toEqual(['nestjs-a2a-no-such-package']);
  });
});

describe('assertGrpcPackages', () => {
  it('passes when every package is installed (as in this repository)', () => {
    expect(() => assertGrpcPackages('nestjs-a2a/grpc', GRPC_SERVER_PACKAGES)).not.toThrow();
  });

  it('throws one GrpcPackagesMissingError naming every missing package and the npm i that installs them', () => {
    let error: unknown;
    try {
      assertGrpcPackages(
        'nestjs-a2a/grpc',
        GRPC_SERVER_PACKAGES,
        onlyInstalled('@grpc/grpc-js', '@nestjs/microservices'),
      );
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(GrpcPackagesMissingError);
    const { missing, message, name } = error as GrpcPackagesMissingError;
    expect(name).toBe('GrpcPackagesMissingError');
    expect(missing).toEqual(['@grpc/proto-loader', '@grpc/reflection', 'protobufjs']);
    expect(message).toBe(
      'nestjs-a2a/grpc needs the optional peers @grpc/grpc-js, @grpc/proto-loader, @grpc/reflection, ' +
        '@nestjs/microservices, protobufjs; not installed: @grpc/proto-loader, @grpc/reflection, protobufjs. ' +
        `Run: npm i @grpc/proto-loader@${GRPC_SERVER_PACKAGES['@grpc/proto-loader']} ` +
        `@grpc/reflection@${GRPC_SERVER_PACKAGES['@grpc/reflection']} protobufjs@${GRPC_SERVER_PACKAGES.protobufjs}`,
    );
  });

  it("asks the client's transport for the packages it needs only", () => {
    expect(Object.keys(GRPC_CLIENT_PACKAGES)).toEqual(['@grpc/grpc-js', '@grpc/proto-loader', 'protobufjs']);
    expect(() =>
      assertGrpcPackages('client', GRPC_CLIENT_PACKAGES, onlyInstalled(...Object.keys(GRPC_CLIENT_PACKAGES))),
    ).not.toThrow();
  });

  it('tells to run the install line of both READMEs when nothing is installed', () => {
    let command = '';
    try {
      assertGrpcPackages('nestjs-a2a/grpc', GRPC_SERVER_PACKAGES, onlyInstalled());
    } catch (error) {
      command = /Run: (.*)$/.exec((error as Error).message)![1];
    }
    const lines = (file: string) => installLines(file).map((args) => `npm i ${args.join(' ')}`);
    expect(lines('README.md')).toContain(command);
    expect(lines('libs/a2a/README.md')).toContain(command);
  });

  it('installs versions within the peer ranges libs/a2a/package.json declares', () => {
    const { peerDependencies } = JSON.parse(readFileSync('libs/a2a/package.json', 'utf8')) as {
      peerDependencies: Record<string, string>;
    };
    // Each install range names the lowest version of one of the peer range's alternatives, or a prefix of it.
    for (const [name, range] of Object.entries(GRPC_SERVER_PACKAGES)) {
      const alternatives = peerDependencies[name].split('||').map((alternative) => alternative.trim());
      expect([name, alternatives.some((alternative) => alternative.startsWith(range))]).toEqual([name, true]);
    }
  });
});
