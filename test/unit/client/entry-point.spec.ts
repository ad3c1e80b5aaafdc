import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * `nestjs-a2a/client` (client.ts) must load without the optional gRPC peers: no module reachable from it through
 * static runtime imports may import one of them. The gRPC transport imports them, and is reached only through a
 * dynamic `import()` when a gRPC interface is used.
 */
const SRC = resolve('libs/a2a/src');
const GRPC_ONLY = ['@grpc/grpc-js', '@grpc/proto-loader', '@grpc/reflection', '@nestjs/microservices', 'protobufjs'];
const OTHER_OPTIONAL = [
  'pg',
  'ioredis',
  '@nestjs/platform-express',
  '@nestjs/platform-fastify',
  '@nestjs/terminus',
  'class-validator',
  'class-transformer',
];
// Runtime imports and re-exports; `import type` / `export type` vanish from the compiled JavaScript, and so does
// `typeof import('…')` in a type position. A dynamic `import('…')` call is not matched: it is not at a line's start.
const RUNTIME_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
const DYNAMIC_IMPORT = /\bawait import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every package the modules reachable from `entry` import at load time, with the first module importing each. */
function runtimePackages(entry: string): { packages: Map<string, string>; modules: Set<string> } {
  const packages = new Map<string, string>();
  const modules = new Set<string>();
  const pending = [resolve(SRC, entry)];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (modules.has(file)) continue;
    modules.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(RUNTIME_IMPORT)) {
      if (specifier.startsWith('.')) pending.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else if (!packages.has(specifier)) packages.set(specifier, file.slice(SRC.length + 1));
    }
  }
  return { packages, modules };
}

const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

describe('nestjs-a2a/client (client.ts)', () => {
  it('imports no gRPC package, nor any other optional peer, at load time', () => {
    const { packages } = runtimePackages('client.ts');
    const optional = [...packages].filter(([specifier]) =>
      [...GRPC_ONLY, ...OTHER_OPTIONAL].includes(packageOf(specifier)),
    );
    expect(optional).toEqual([]);
  });

  it('does not reach the gRPC transport statically; the transport factory loads it with a dynamic import()', () => {
    const { modules } = runtimePackages('client.ts');
    const transport = resolve(SRC, 'client/transports/grpc.transport.ts');
    expect(modules.has(transport)).toBe(false);
    const factory = readFileSync(resolve(SRC, 'client/transports/transport.factory.ts'), 'utf8');
    expect([...factory.matchAll(DYNAMIC_IMPORT)].map(([, specifier]) => specifier)).toEqual(['./grpc.transport.js']);
  });

  it('the gRPC transport is where @grpc/grpc-js and protobufjs come in', () => {
    const used = new Set([...runtimePackages('client/transports/grpc.transport.ts').packages.keys()].map(packageOf));
    expect(['@grpc/grpc-js', '@grpc/proto-loader', 'protobufjs'].filter((name) => used.has(name))).toEqual([
      '@grpc/grpc-js',
      '@grpc/proto-loader',
      'protobufjs',
    ]);
    expect(used.has('@nestjs/microservices')).toBe(false);
  });
});
