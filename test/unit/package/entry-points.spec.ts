import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { GRPC_SERVER_PACKAGES } from '../../../libs/a2a/src/bindings/grpc/grpc-packages.check.js';
import { SKILL_INPUT_PACKAGES } from '../../../libs/a2a/src/skills/skill-input.packages.js';

/**
 * The core entry point (`nestjs-a2a`) must load without the optional peers, each needed only by its subpath (the gRPC
 * packages by `nestjs-a2a/grpc`, `pg` by `nestjs-a2a/postgres`, `ioredis` by `nestjs-a2a/redis`): no module reachable
 * from `index.ts` through runtime imports may import one of them. `@nestjs/terminus` is needed by `nestjs-a2a/terminus`
 * alone, and `nestjs-a2a/testing` and `nestjs-a2a/store` need none of them.
 */

const SRC = resolve('libs/a2a/src');
const GRPC_ONLY = ['@grpc/grpc-js', '@grpc/proto-loader', '@grpc/reflection', '@nestjs/microservices', 'protobufjs'];
/** The optional peer of `nestjs-a2a/postgres`. */
const POSTGRES_ONLY = ['pg'];
/** The optional peer of `nestjs-a2a/terminus`. */
const TERMINUS_ONLY = ['@nestjs/terminus'];
/** The optional peer of `nestjs-a2a/redis`. */
const REDIS_ONLY = ['ioredis'];
/** The optional peers of typed skill inputs: the core loads them with `import()` at bootstrap, for a skill with `input`. */
const TYPED_INPUT_ONLY = ['class-validator', 'class-transformer', 'class-validator-jsonschema'];
/** The optional peer of tracing and metrics: the core loads it with `import()` at bootstrap (option `observability`). */
const OTEL_ONLY = ['@opentelemetry/api'];
// `import('./…')`: how grpc.ts loads the binding's modules once their packages are found.
const DYNAMIC_IMPORT = /\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g;
// Runtime imports and re-exports; `import type` / `export type` vanish from the compiled JavaScript.
const RUNTIME_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

/** Every package the modules reachable from `entry` import at run time, with the first module importing each. */
function runtimePackages(entry: string): Map<string, string> {
  const packages = new Map<string, string>();
  const seen = new Set<string>();
  const pending = [resolve(SRC, entry)];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(RUNTIME_IMPORT)) {
      if (specifier.startsWith('.')) pending.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else if (!packages.has(specifier)) packages.set(specifier, file.slice(SRC.length + 1));
    }
  }
  return packages;
}

const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

describe('entry points', () => {
  it('the core (index.ts) imports no gRPC package at run time', () => {
    const grpcImports = [...runtimePackages('index.ts')].filter(([specifier]) =>
      GRPC_ONLY.includes(packageOf(specifier)),
    );
    expect(grpcImports).toEqual([]);
  });

  it('nestjs-a2a/grpc (grpc.ts) imports none of them itself: it checks they are installed, then loads the modules that do', () => {
    const own = [...runtimePackages('grpc.ts').keys()].map(packageOf);
    expect(GRPC_ONLY.filter((name) => own.includes(name))).toEqual([]);
    const loaded = [...readFileSync(resolve(SRC, 'grpc.ts'), 'utf8').matchAll(DYNAMIC_IMPORT)].map(([, specifier]) =>
      resolve(SRC, specifier.replace(/\.js$/, '.ts')).slice(SRC.length + 1),
    );
    const used = new Set(loaded.flatMap((file) => [...runtimePackages(file).keys()].map(packageOf)));
    expect(GRPC_ONLY.filter((name) => used.has(name))).toEqual(GRPC_ONLY);
    expect(Object.keys(GRPC_SERVER_PACKAGES)).toEqual(GRPC_ONLY);
  });

  it('the core (index.ts) imports no pg at run time, nestjs-a2a/postgres (postgres.ts) does, and no gRPC package', () => {
    const packages = (entry: string, only: string[]) =>
      [...runtimePackages(entry).keys()].map(packageOf).filter((name) => only.includes(name));
    expect(packages('index.ts', POSTGRES_ONLY)).toEqual([]);
    expect(packages('postgres.ts', POSTGRES_ONLY)).toEqual(POSTGRES_ONLY);
    expect(packages('postgres.ts', GRPC_ONLY)).toEqual([]);
  });

  it('the core (index.ts) imports no Redis client at run time, nestjs-a2a/redis (redis.ts) does', () => {
    const redisImports = (entry: string) =>
      [...runtimePackages(entry).keys()].map(packageOf).filter((name) => REDIS_ONLY.includes(name));
    expect(redisImports('index.ts')).toEqual([]);
    expect(redisImports('redis.ts')).toEqual(REDIS_ONLY);
  });

  it('the core (index.ts) imports none of the typed-input peers at run time: it loads them at bootstrap, when a skill has input', () => {
    expect(
      [...runtimePackages('index.ts').keys()].map(packageOf).filter((name) => TYPED_INPUT_ONLY.includes(name)),
    ).toEqual([]);
    expect([...SKILL_INPUT_PACKAGES]).toEqual(TYPED_INPUT_ONLY);
  });

  it('the core (index.ts) imports no @opentelemetry/api at run time: tracing and metrics load it at bootstrap, and work without it', () => {
    expect([...runtimePackages('index.ts').keys()].map(packageOf).filter((name) => OTEL_ONLY.includes(name))).toEqual(
      [],
    );
    expect(
      [...runtimePackages('observability/a2a-observability.ts').keys()]
        .map(packageOf)
        .filter((name) => name.startsWith('@opentelemetry/')),
    ).toEqual([]);
  });

  it('the core (index.ts) imports no @nestjs/terminus at run time, nestjs-a2a/terminus (terminus.ts) does, and no other optional peer', () => {
    const packages = (entry: string, only: string[]) =>
      [...runtimePackages(entry).keys()].map(packageOf).filter((name) => only.includes(name));
    expect(packages('index.ts', TERMINUS_ONLY)).toEqual([]);
    expect(packages('terminus.ts', TERMINUS_ONLY)).toEqual(TERMINUS_ONLY);
    expect(packages('terminus.ts', [...GRPC_ONLY, ...POSTGRES_ONLY, ...REDIS_ONLY])).toEqual([]);
    expect(packages('push-receiver.ts', TERMINUS_ONLY)).toEqual([]);
  });

  it('nestjs-a2a/testing (testing.ts) imports none of those optional peers, nor @nestjs/testing', () => {
    const optional = [...GRPC_ONLY, ...POSTGRES_ONLY, ...REDIS_ONLY, ...TERMINUS_ONLY, '@nestjs/testing'];
    expect([...runtimePackages('testing.ts').keys()].map(packageOf).filter((name) => optional.includes(name))).toEqual(
      [],
    );
  });

  it('nestjs-a2a/store (store.ts) imports none of the optional peers: implementing a store needs no driver but its own', () => {
    const optional = [
      ...GRPC_ONLY,
      ...POSTGRES_ONLY,
      ...REDIS_ONLY,
      ...TERMINUS_ONLY,
      ...TYPED_INPUT_ONLY,
      ...OTEL_ONLY,
    ];
    expect([...runtimePackages('store.ts').keys()].map(packageOf).filter((name) => optional.includes(name))).toEqual(
      [],
    );
  });

  it('nestjs-a2a/push-receiver (push-receiver.ts) imports none of the optional peers', () => {
    const optional = [...GRPC_ONLY, ...POSTGRES_ONLY, ...REDIS_ONLY, ...TYPED_INPUT_ONLY];
    expect(
      [...runtimePackages('push-receiver.ts').keys()].map(packageOf).filter((name) => optional.includes(name)),
    ).toEqual([]);
  });
});
