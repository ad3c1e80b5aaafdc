import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { AgentCard, SendMessageResponse, Task } from '../../../libs/a2a/src/index.js';

/**
 * What a user gets from npm: the library built with `npm run build:lib`, packed with `npm pack`, and installed with its
 * required peers only into a fresh app outside the repository, which then imports it by package name from plain
 * JavaScript and serves a skill. The other tests import `libs/a2a/src` through ts-jest, so only this one catches a file
 * missing from `files`, a broken `exports` map, or a core entry that loads a gRPC package at runtime.
 */

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const libRoot = join(repoRoot, 'libs/a2a');
const libManifest = JSON.parse(readFileSync(join(libRoot, 'package.json'), 'utf8')) as {
  peerDependencies: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};
/** The packages `nestjs-a2a/grpc` needs: an HTTP-only app must install and run without any of them. */
const grpcPackages = ['@grpc/grpc-js', '@grpc/proto-loader', '@grpc/reflection', '@nestjs/microservices', 'protobufjs'];
/**
 * The peers npm would otherwise install on its own, and both HTTP adapters (optional peers: an app picks one), pinned
 * to the repo's versions so that the npm cache serves them.
 */
const installedPeers = [
  ...Object.keys(libManifest.peerDependencies).filter((name) => !libManifest.peerDependenciesMeta?.[name]?.optional),
  '@nestjs/platform-express',
  '@nestjs/platform-fastify',
];
/** The origin the card advertises; the app itself listens on an ephemeral port, as behind a proxy. */
const publicOrigin = 'http://agent.example';

// Plain ESM JavaScript, as a user without TypeScript would write README's "A skill in 25 lines": decorators applied
// with Reflect.decorate (what tsc emits), which returns the class. Calling `Module({...})(class {})` instead would
// yield undefined, since Nest's class decorators return nothing.
const appSource = `import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { A2aModule, A2aSkillHandler, AgentSkill, artifact, complete } from 'nestjs-a2a';

class ShoutSkill extends A2aSkillHandler {
  async *handle(context) {
    yield artifact(context.text.toUpperCase());
    yield complete();
  }
}
Reflect.decorate([AgentSkill({ id: 'shout', name: 'Shout', description: 'Repeats your text in capitals', tags: ['text'] })], ShoutSkill);

class AppModule {}
Reflect.decorate(
  [Module({ imports: [A2aModule.forRoot({ card: { name: 'Shouter', description: 'Shouts back' }, baseUrl: '${publicOrigin}', inspector: {} })], providers: [ShoutSkill] })],
  AppModule,
);

// abortOnError: false makes a bootstrap error throw (and reach stderr) instead of a silent exit(1) under logger: false.
const options = { logger: false, abortOnError: false };
const app =
  process.env.ADAPTER === 'fastify'
    ? await NestFactory.create(AppModule, new (await import('@nestjs/platform-fastify')).FastifyAdapter(), options)
    : await NestFactory.create(AppModule, options);
await app.listen(0, '127.0.0.1');
console.log('listening on ' + (await app.getUrl()));
`;

const execFileAsync = promisify(execFile);
// Jest's ESM mode flag is not for the processes under test (and makes Node warn).
const childEnv = { ...process.env, NODE_OPTIONS: '' };

/** Runs a command to completion within `timeoutMs`; on failure the error carries its output. */
async function run(command: string, args: string[], cwd: string, timeoutMs: number): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, args, {
      cwd,
      env: childEnv,
      timeout: timeoutMs,
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const { stdout, stderr, killed } = error as { stdout?: string; stderr?: string; killed?: boolean };
    const why = killed ? `timed out after ${timeoutMs} ms` : 'failed';
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) ${why}:\n${stderr ?? ''}\n${stdout ?? ''}`.trimEnd(), {
      cause: error,
    });
  }
}

function installedVersion(name: string): string {
  return (JSON.parse(readFileSync(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;
}

/** Starts the app and resolves with the URL it prints, or rejects if it exits or stays silent for `timeoutMs`. */
function startApp(cwd: string, adapter: string, timeoutMs: number): { child: ChildProcess; url: Promise<string> } {
  const child = spawn(process.execPath, ['main.js'], {
    cwd,
    env: { ...childEnv, ADAPTER: adapter },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`the packed app printed no URL within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the packed app exited with ${code} before listening:\n${output}`));
    });
  });
  return { child, url };
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

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

describe('the packed nestjs-a2a, installed without its gRPC peers', () => {
  let workDir: string | undefined;
  let appDir: string;
  let packedFiles: string[];

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'nestjs-a2a-packed-'));
    const packDir = join(workDir, 'pack');
    appDir = join(workDir, 'app');
    await mkdir(packDir);
    await mkdir(appDir);

    await run('npm', ['run', 'build:lib'], repoRoot, 30_000);
    const [packed] = JSON.parse(
      await run('npm', ['pack', '--json', '--pack-destination', packDir], libRoot, 15_000),
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
    const peers = [...new Set(installedPeers)].map((name) => `${name}@${installedVersion(name)}`);
    await run(
      'npm',
      [
        'install',
        join(packDir, packed.filename),
        ...peers,
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--ignore-scripts',
      ],
      appDir,
      90_000,
    );
  }, 140_000); // steps bounded at 30 + 15 + 90 s (npm install, cold cache)

  afterAll(async () => {
    if (workDir) await rm(workDir, { recursive: true, force: true });
  }, 15_000);

  it('packs the entry points with their types, the proto descriptor and the LICENSE, and no sources', () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        'LICENSE',
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
        'proto/a2a.binpb',
        'proto/a2a.proto',
        'dist/inspector/assets/index.html',
        'dist/inspector/assets/inspector.js',
        'dist/inspector/assets/inspector.css',
      ]),
    );
    expect(packedFiles.filter((path) => path.startsWith('src/') || /\.spec\.(js|d\.ts)$/.test(path))).toEqual([]);
  });

  it('installs with the required peers only: no gRPC package, and the LICENSE alongside', () => {
    const modules = join(appDir, 'node_modules');
    expect(grpcPackages.filter((name) => existsSync(join(modules, name)))).toEqual([]);
    expect(existsSync(join(modules, 'ioredis'))).toBe(false);
    expect(existsSync(join(modules, 'pg'))).toBe(false);
    expect(existsSync(join(modules, 'nestjs-a2a', 'LICENSE'))).toBe(true);
  });

  describe.each(['express', 'fastify'])('booted on %s', (adapter) => {
    let child: ChildProcess | undefined;
    let url: string;
    let card: AgentCard;

    /** The URL of an interface the card advertises, on the origin the app really listens on. */
    const endpoint = (binding: string, suffix = '') =>
      new URL(new URL(card.supportedInterfaces.find((i) => i.protocolBinding === binding)!.url).pathname + suffix, url);

    beforeAll(async () => {
      const started = startApp(appDir, adapter, 10_000);
      child = started.child;
      url = await started.url;
      const res = await fetch(new URL('/.well-known/agent-card.json', url));
      if (res.status !== 200)
        throw new Error(`GET /.well-known/agent-card.json answered ${res.status}: ${await res.text()}`);
      card = (await res.json()) as AgentCard;
    }, 15_000);
    afterAll(() => stop(child), 10_000);

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
      await run(process.execPath, ['--input-type=module', '-e', probe], appDir, 15_000),
    ) as Record<string, string[]>;
    expect(loaded).toEqual(Object.fromEntries(specifiers.map((specifier) => [specifier, recordedValues(specifier)])));
  }, 20_000);

  // Documents the other side of the optional peers: the gRPC entry point is what needs them.
  it('cannot load nestjs-a2a/grpc without its optional peers', async () => {
    const probe = `import('nestjs-a2a/grpc').then(
      () => console.log(JSON.stringify({ loaded: true })),
      (e) => console.log(JSON.stringify({ code: e.code, message: e.message })),
    );`;
    const outcome = JSON.parse(await run(process.execPath, ['--input-type=module', '-e', probe], appDir, 15_000)) as {
      code?: string;
      message?: string;
    };
    expect(outcome.code).toBe('ERR_MODULE_NOT_FOUND');
    const missing = /Cannot find package '([^']+)'/.exec(outcome.message ?? '')?.[1];
    expect(grpcPackages).toContain(missing);
  }, 20_000);

  it('cannot load nestjs-a2a/redis without its optional peer ioredis', async () => {
    const probe = `import('nestjs-a2a/redis').then(
      () => console.log(JSON.stringify({ loaded: true })),
      (e) => console.log(JSON.stringify({ code: e.code, message: e.message })),
    );`;
    const outcome = JSON.parse(await run(process.execPath, ['--input-type=module', '-e', probe], appDir, 15_000)) as {
      code?: string;
      message?: string;
    };
    expect(outcome.code).toBe('ERR_MODULE_NOT_FOUND');
    expect(/Cannot find package '([^']+)'/.exec(outcome.message ?? '')?.[1]).toBe('ioredis');
  }, 20_000);

  it('cannot load nestjs-a2a/postgres without its optional peer pg', async () => {
    const probe = `import('nestjs-a2a/postgres').then(
      () => console.log(JSON.stringify({ loaded: true })),
      (e) => console.log(JSON.stringify({ code: e.code, message: e.message })),
    );`;
    const outcome = JSON.parse(await run(process.execPath, ['--input-type=module', '-e', probe], appDir, 15_000)) as {
      code?: string;
      message?: string;
    };
    expect(outcome.code).toBe('ERR_MODULE_NOT_FOUND');
    expect(/Cannot find package '([^']+)'/.exec(outcome.message ?? '')?.[1]).toBe('pg');
  }, 20_000);
});
