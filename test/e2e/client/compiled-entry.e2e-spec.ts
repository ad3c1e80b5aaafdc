import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';

/**
 * The compiled entry point (tsc output of `client.ts`, as the package ships it), loaded by plain node with a resolve
 * hook that records every package imported: none of the gRPC packages until a gRPC interface is used, then those.
 */
const ROOT = resolve('.');
const GRPC_PACKAGES = [
  '@grpc/grpc-js',
  '@grpc/proto-loader',
  'protobufjs',
  '@nestjs/microservices',
  '@grpc/reflection',
];

let dir: string;
let agent: RunningAgent;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'a2a-client-build-'));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.json'),
      compilerOptions: {
        outDir: join(dir, 'out'),
        rootDir: ROOT,
        declaration: false,
        sourceMap: false,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules/@types')],
      },
      include: [],
      files: [join(ROOT, 'libs/a2a/src/client.ts')],
    }),
  );
  const compiled = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')],
    { encoding: 'utf8', timeout: 60_000 },
  );
  if (compiled.status !== 0) throw new Error(`tsc failed: ${compiled.stdout}${compiled.stderr}`);
  // What the package has beside dist: node_modules to resolve peers from, and proto/ for the gRPC descriptor set.
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  symlinkSync(join(ROOT, 'proto'), join(dir, 'out', 'proto'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(
    join(dir, 'hooks.mjs'),
    `export async function resolve(specifier, context, next) {
      if (!/^(\\.|\\/|file:|node:)/.test(specifier)) process.stdout.write('package ' + specifier + '\\n');
      return next(specifier, context);
    }`,
  );
  writeFileSync(
    join(dir, 'main.mjs'),
    `import { register } from 'node:module';
    register('./hooks.mjs', import.meta.url);
    const { A2aAgentClient } = await import('./out/libs/a2a/src/client.js');
    const network = { allowedCidrs: ['127.0.0.1/32'] };
    const http = new A2aAgentClient({ cardUrl: process.env.AGENT_URL, preferredTransports: ['JSONRPC'], network });
    process.stdout.write('step jsonrpc ' + (await http.send('echo compiled')).status.state + '\\n');
    const grpc = new A2aAgentClient({ cardUrl: process.env.AGENT_URL, preferredTransports: ['GRPC'], network });
    process.stdout.write('step grpc ' + (await grpc.send('echo compiled')).status.state + '\\n');
    await Promise.all([http.close(), grpc.close()]);`,
  );
  agent = await startConformanceAgent({ withGrpc: true, push: false });
}, 90_000);
afterAll(async () => {
  await agent?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs main.mjs; its output lines. */
function run(): Promise<string[]> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['main.mjs'], {
      cwd: dir,
      env: { ...process.env, AGENT_URL: agent.url, NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const timer = setTimeout(() => child.kill(), 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolvePromise(out.split('\n').filter(Boolean));
      else reject(new Error(`main.mjs exited with ${code}: ${err}`));
    });
  });
}

it('loads no gRPC package for JSON-RPC calls, and loads them on the first gRPC call', async () => {
  const lines = await run();
  const step = lines.indexOf('step jsonrpc TASK_STATE_COMPLETED');
  expect(step).toBeGreaterThan(0);
  expect(lines).toContain('step grpc TASK_STATE_COMPLETED');
  const packageOf = (line: string) =>
    line
      .slice('package '.length)
      .split('/')
      .slice(0, line.includes('@') ? 2 : 1)
      .join('/');
  const before = lines
    .slice(0, step)
    .filter((line) => line.startsWith('package '))
    .map(packageOf);
  const after = lines
    .slice(step)
    .filter((line) => line.startsWith('package '))
    .map(packageOf);
  expect(before.filter((name) => GRPC_PACKAGES.includes(name))).toEqual([]);
  expect(after).toEqual(expect.arrayContaining(['@grpc/grpc-js', 'protobufjs', '@grpc/proto-loader']));
  expect(after).not.toContain('@nestjs/microservices');
}, 40_000);
