import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileEntry, type CompiledEntry } from '../../fixtures/compiled-entry.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';

/**
 * The compiled entry point (tsc output of `client.ts`, as the package ships it), loaded by plain node with a resolve
 * hook that records every package imported: none of the gRPC packages until a gRPC interface is used, then those.
 */
const GRPC_PACKAGES = [
  '@grpc/grpc-js',
  '@grpc/proto-loader',
  'protobufjs',
  '@nestjs/microservices',
  '@grpc/reflection',
];

let compiled: CompiledEntry | undefined;
let dir: string;
let agent: RunningAgent;

beforeAll(async () => {
  compiled = compileEntry('libs/a2a/src/client.ts', 'a2a-client-build-');
  dir = compiled.dir;
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
}, 150_000);
afterAll(async () => {
  await agent?.close();
  compiled?.remove();
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
