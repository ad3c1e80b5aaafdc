import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GRPC_SERVER_PACKAGES } from '../../../libs/a2a/src/bindings/grpc/grpc-packages.check.js';
import type { AgentCard, SendMessageResponse, Task } from '../../../libs/a2a/src/index.js';
import { freePort, GrpcJsonClient, type Json } from '../../fixtures/grpc-json.client.js';
import {
  appSource,
  grpcAppSource,
  grpcClientProbe,
  missingGrpcClientProbe,
  publicOrigin,
} from '../../fixtures/packed-app.sources.js';
import { readmeInstallSpecs, run, startApp, stop } from '../../fixtures/packed-app.js';

/**
 * What a user gets from npm: the library built with `npm run build:lib`, packed with `npm pack`, and installed into a
 * fresh app outside the repository with exactly the `npm i` lines of the READMEs (root and package), from the
 * registry; the app then imports it by package name from plain JavaScript and serves a skill over every binding,
 * gRPC included. The other tests import `libs/a2a/src` through ts-jest, with the repository's lockfile, so only this
 * one catches a file missing from `files`, a broken `exports` map, a README install line that does not work, or a
 * peer at a version the repository does not test (protobufjs 8). The same install, less every optional peer, is the
 * HTTP-only app: the core must load and serve without them.
 */

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const libRoot = join(repoRoot, 'libs/a2a');
const libManifest = JSON.parse(readFileSync(join(libRoot, 'package.json'), 'utf8')) as {
  peerDependencies: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};
/** The packages `nestjs-a2a/grpc` needs: an HTTP-only app must install and run without any of them. */
const grpcPackages = Object.keys(GRPC_SERVER_PACKAGES);
/** What the READMEs say to install, by package: the core's line and every feature's. */
const readmeSpecs = readmeInstallSpecs([join(repoRoot, 'README.md'), join(libRoot, 'README.md')]);
/** The optional peers, less the HTTP adapters (an app picks one): removed from the install for the HTTP-only app. */
const optionalPeers = Object.keys(libManifest.peerDependencies).filter(
  (name) => libManifest.peerDependenciesMeta?.[name]?.optional && !name.startsWith('@nestjs/platform-'),
);
/** The version of `name` installed in `dir`. */
function versionIn(dir: string, name: string): string {
  return (JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;
}

/** The run-time exports (classes, functions, constants) of `specifier` that the checked-in API report lists, sorted. */
function recordedValues(specifier: string): string[] {
  const report = readFileSync(join(repoRoot, 'libs/a2a/api/public-api.txt'), 'utf8');
  const section = report.split('\n\n').find((block) => block.split('\n')[0] === specifier);
  if (!section) throw new Error(`libs/a2a/api/public-api.txt has no section ${specifier}`);
  return section
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(' '))
    .filter(([kind]) => !['interface', 'type'].includes(kind))
    .map(([, name]) => name)
    .sort();
}

describe('the packed nestjs-a2a, installed as the READMEs say', () => {
  let workDir: string | undefined;
  let appDir: string;
  let bareDir: string;
  let packedFiles: string[];

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'nestjs-a2a-packed-'));
    const packDir = join(workDir, 'pack');
    appDir = join(workDir, 'app');
    bareDir = join(workDir, 'http-only-app');
    await mkdir(packDir);
    await mkdir(appDir);

    await run('npm', ['run', 'build:lib'], repoRoot, 120_000);
    const [packed] = JSON.parse(
      await run('npm', ['pack', '--json', '--pack-destination', packDir], libRoot, 45_000),
    ) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    packedFiles = packed.files.map((f) => f.path);

    await writeFile(
      join(appDir, 'package.json'),
      JSON.stringify({ name: 'packed-a2a-app', private: true, type: 'module' }, null, 2),
    );
    await writeFile(join(appDir, 'main.js'), appSource);
    await writeFile(join(appDir, 'grpc-main.js'), grpcAppSource);
    await writeFile(join(appDir, 'grpc-client.js'), grpcClientProbe);
    await writeFile(join(appDir, 'grpc-client-without-packages.js'), missingGrpcClientProbe);
    // Exactly the READMEs' lines, the packed tarball standing for `nestjs-a2a`.
    const specs = [...readmeSpecs].map(([name, spec]) =>
      name === 'nestjs-a2a' ? join(packDir, packed.filename) : spec,
    );
    await run(
      'npm',
      ['install', ...specs, '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'],
      appDir,
      180_000,
    );
    // The HTTP-only app: the same install (hard links), less every optional peer.
    await run('cp', ['-al', appDir, bareDir], workDir, 45_000);
    await Promise.all(
      optionalPeers.map((name) => rm(join(bareDir, 'node_modules', name), { recursive: true, force: true })),
    );
  }, 420_000); // steps bounded at 120 + 45 + 180 + 45 s (a busy two-core machine, npm install with a cold cache)

  afterAll(async () => {
    if (workDir) await rm(workDir, { recursive: true, force: true });
  }, 45_000);

  it('packs the entry points with their types, the proto descriptor, the LICENSE and README, no sources, no maps', () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/grpc.js',
        'dist/grpc.d.ts',
        'dist/redis.js',
        'dist/redis.d.ts',
        'dist/postgres.js',
        'dist/postgres.d.ts',
        'dist/store.js',
        'dist/store.d.ts',
        'dist/push-receiver.js',
        'dist/push-receiver.d.ts',
        'dist/cli/main.js',
        'proto/a2a.binpb',
        'proto/a2a.proto',
        'dist/inspector/assets/index.html',
        'dist/inspector/assets/inspector.js',
        'dist/inspector/assets/inspector.css',
      ]),
    );
    expect(packedFiles.filter((path) => path.startsWith('src/') || /\.spec\.(js|d\.ts)$/.test(path))).toEqual([]);
    // Maps would point at sources the package does not ship.
    expect(packedFiles.filter((path) => path.endsWith('.map'))).toEqual([]);
  });

  it('installs what the READMEs list, every optional peer included, with the LICENSE alongside', () => {
    const { dependencies } = JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(dependencies).sort()).toEqual([...readmeSpecs.keys()].sort());
    expect(grpcPackages.filter((name) => !readmeSpecs.has(name))).toEqual([]);
    expect(existsSync(join(appDir, 'node_modules', 'nestjs-a2a', 'LICENSE'))).toBe(true);
  });

  it('leaves no optional peer in the HTTP-only app', () => {
    expect(optionalPeers.filter((name) => existsSync(join(bareDir, 'node_modules', name)))).toEqual([]);
    expect(optionalPeers).toEqual(expect.arrayContaining([...grpcPackages, 'pg', 'ioredis']));
  });

  it('installs the nestjs-a2a command, which runs from node_modules/.bin', async () => {
    const bin = join(appDir, 'node_modules', '.bin', 'nestjs-a2a');
    expect(existsSync(bin)).toBe(true);
    const help = await run(bin, ['--help'], appDir, 45_000);
    expect(help).toMatch(/^Usage: nestjs-a2a <command> <url>/);
    expect(help).toContain('Exit codes:');
  }, 60_000);

  describe.each(['express', 'fastify'])('booted without its optional peers, on %s', (adapter) => {
    let child: ChildProcess | undefined;
    let url: string;
    let card: AgentCard;

    /** The URL of an interface the card advertises, on the origin the app really listens on. */
    const endpoint = (binding: string, suffix = '') =>
      new URL(new URL(card.supportedInterfaces.find((i) => i.protocolBinding === binding)!.url).pathname + suffix, url);

    beforeAll(async () => {
      const started = startApp(bareDir, 'main.js', { ADAPTER: adapter }, 30_000);
      child = started.child;
      url = await started.url;
      const res = await fetch(new URL('/.well-known/agent-card.json', url));
      if (res.status !== 200)
        throw new Error(`GET /.well-known/agent-card.json answered ${res.status}: ${await res.text()}`);
      card = (await res.json()) as AgentCard;
    }, 45_000);
    afterAll(() => stop(child), 30_000);

    it('serves a card that names the skill and lists JSON-RPC and HTTP+JSON, not gRPC', () => {
      expect(card.skills.map((s) => s.id)).toEqual(['shout']);
      expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.url])).toEqual([
        ['JSONRPC', `${publicOrigin}/a2a/jsonrpc`],
        ['HTTP+JSON', `${publicOrigin}/a2a/rest`],
      ]);
    });

    it('answers message:send over HTTP+JSON with a completed task', async () => {
      const res = await fetch(endpoint('HTTP+JSON', '/message:send'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } }),
      });
      expect(res.status).toBe(200);
      const { task } = (await res.json()) as SendMessageResponse & { task: Task };
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(task.artifacts?.[0].parts).toEqual([{ text: 'HELLO' }]);
    });

    it('serves the inspector page and its files from the package', async () => {
      for (const file of [
        '',
        '/inspector.js',
        '/a2a-transport.js',
        '/schema-checks.js',
        '/inspector.css',
        '/login.js',
      ]) {
        const res = await fetch(new URL(`/a2a/inspector${file}`, url));
        expect([file, res.status]).toEqual([file, 200]);
      }
    });

    it('answers SendMessage over JSON-RPC with a completed task', async () => {
      const res = await fetch(endpoint('JSONRPC'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
        }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { id: number; result: SendMessageResponse & { task: Task } };
      expect(body.id).toBe(1);
      expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(body.result.task.artifacts?.[0].parts).toEqual([{ text: 'HELLO' }]);
    });
  });

  it('loads every entry point that needs no optional peer, each exporting the values libs/a2a/api/public-api.txt records', async () => {
    const specifiers = [
      'nestjs-a2a',
      'nestjs-a2a/store',
      'nestjs-a2a/client',
      'nestjs-a2a/testing',
      'nestjs-a2a/push-receiver',
    ];
    const probe = `Promise.all(${JSON.stringify(specifiers)}.map((s) => import(s).then((m) => [s, Object.keys(m).sort()]))).then(
      (loaded) => console.log(JSON.stringify(Object.fromEntries(loaded))),
    );`;
    const loaded = JSON.parse(
      await run(process.execPath, ['--input-type=module', '-e', probe], bareDir, 45_000),
    ) as Record<string, string[]>;
    expect(loaded).toEqual(Object.fromEntries(specifiers.map((specifier) => [specifier, recordedValues(specifier)])));
  }, 60_000);

  it('refuses nestjs-a2a/grpc without its optional peers with one GrpcPackagesMissingError naming all of them', async () => {
    const probe = `import('nestjs-a2a/grpc').then(
      () => console.log(JSON.stringify({ loaded: true })),
      async (e) => console.log(JSON.stringify({
        name: e.name,
        typed: e instanceof (await import('nestjs-a2a')).GrpcPackagesMissingError,
        missing: e.missing,
        message: e.message,
      })),
    );`;
    const outcome = JSON.parse(await run(process.execPath, ['--input-type=module', '-e', probe], bareDir, 45_000)) as {
      name?: string;
      typed?: boolean;
      missing?: string[];
      message?: string;
    };
    expect(outcome).toMatchObject({ name: 'GrpcPackagesMissingError', typed: true, missing: grpcPackages });
    const command = `npm i ${grpcPackages.map((name) => readmeSpecs.get(name)).join(' ')}`;
    expect(outcome.message).toContain(`Run: ${command}`);
  }, 60_000);

  it('cannot load nestjs-a2a/redis without its optional peer ioredis', async () => {
    const probe = `import('nestjs-a2a/redis').then(
      () => console.log(JSON.stringify({ loaded: true })),
      (e) => console.log(JSON.stringify({ code: e.code, message: e.message })),
    );`;
    const outcome = JSON.parse(await run(process.execPath, ['--input-type=module', '-e', probe], bareDir, 45_000)) as {
      code?: string;
      message?: string;
    };
    expect(outcome.code).toBe('ERR_MODULE_NOT_FOUND');
    expect(/Cannot find package '([^']+)'/.exec(outcome.message ?? '')?.[1]).toBe('ioredis');
  }, 60_000);

  it('cannot load nestjs-a2a/postgres without its optional peer pg', async () => {
    const probe = `import('nestjs-a2a/postgres').then(
      () => console.log(JSON.stringify({ loaded: true })),
      (e) => console.log(JSON.stringify({ code: e.code, message: e.message })),
    );`;
    const outcome = JSON.parse(await run(process.execPath, ['--input-type=module', '-e', probe], bareDir, 45_000)) as {
      code?: string;
      message?: string;
    };
    expect(outcome.code).toBe('ERR_MODULE_NOT_FOUND');
    expect(/Cannot find package '([^']+)'/.exec(outcome.message ?? '')?.[1]).toBe('pg');
  }, 60_000);

  describe("with the READMEs' gRPC packages", () => {
    let child: ChildProcess | undefined;
    let url: string;
    let client: GrpcJsonClient;

    beforeAll(async () => {
      const [httpPort, grpcPort] = [await freePort(), await freePort()];
      const started = startApp(
        appDir,
        'grpc-main.js',
        { HTTP_PORT: String(httpPort), GRPC_PORT: String(grpcPort) },
        45_000,
      );
      child = started.child;
      url = await started.url;
      client = new GrpcJsonClient(`127.0.0.1:${grpcPort}`);
    }, 60_000);
    afterAll(async () => {
      client?.client.close();
      await stop(child);
    }, 30_000);

    it(`runs on the protobufjs major the READMEs install (${readmeSpecs.get('protobufjs')})`, () => {
      const major = /@[\^~]?(\d+)/.exec(readmeSpecs.get('protobufjs') ?? '')?.[1];
      expect(versionIn(appDir, 'protobufjs').split('.')[0]).toBe(major);
    });

    it('carries a data part and metadata over gRPC, both ways', async () => {
      const data: Json = { ok: true, n: 42, list: [1, 'a', null, { deep: [] }], empty: {} };
      const { task } = (await client.unary('SendMessage', {
        message: {
          messageId: 'g1',
          role: 'ROLE_USER',
          parts: [{ data, mediaType: 'application/json' }, { text: 'and text' }],
          metadata: { trace: 'abc', nested: { k: [true] } },
        },
      })) as { task: Json };
      expect(task.status).toMatchObject({ state: 'TASK_STATE_COMPLETED' });
      const [artifact] = task.artifacts as Json[];
      expect(artifact.parts).toEqual([
        { data, mediaType: 'application/json' },
        { text: 'and text' },
        { data: { trace: 'abc', nested: { k: [true] } } },
      ]);
    });

    it("serves the library's own client, which picks the card's gRPC interface", async () => {
      const outcome = JSON.parse(await run(process.execPath, ['grpc-client.js', url], appDir, 45_000)) as {
        state: string;
        artifacts: Array<{ parts: unknown[] }>;
      };
      expect(outcome.state).toBe('TASK_STATE_COMPLETED');
      expect(outcome.artifacts[0].parts).toEqual([
        { data: { from: 'client', n: [1, null] } },
        { data: { via: 'grpc' } },
      ]);
    }, 60_000);

    it("fails the client's gRPC call in the HTTP-only app naming every missing package", async () => {
      const outcome = JSON.parse(
        await run(process.execPath, ['grpc-client-without-packages.js', url], bareDir, 45_000),
      ) as { name: string; kind: string; cause: string; missing: string[]; message: string };
      const clientPackages = ['@grpc/grpc-js', '@grpc/proto-loader', 'protobufjs'];
      expect(outcome).toMatchObject({
        name: 'A2aTransportError',
        kind: 'TransportUnavailable',
        cause: 'GrpcPackagesMissingError',
        missing: clientPackages,
      });
      expect(outcome.message).toContain(`npm i ${clientPackages.map((name) => readmeSpecs.get(name)).join(' ')}`);
    }, 60_000);
  });
});
