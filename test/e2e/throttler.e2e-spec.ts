import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { call, type SecurityTarget } from './security-calls.js';

/**
 * @nestjs/throttler as one of A2aModule's guards (issue 9, abuse limits): it runs after the module's own guard, so it
 * counts per principal, and its 429 keeps its meaning on both HTTP bindings. The agent runs in plain Node from the
 * build (test/fixtures/throttled-agent.mjs): the throttler is CommonJS, which Jest cannot load next to Nest 12's ESM.
 */
let child: ChildProcess;
let target: SecurityTarget;

beforeAll(async () => {
  if (!existsSync('dist/libs/a2a/src/index.js')) throw new Error('dist/ is missing: run "npm run build" first (npm test does)');
  child = spawn(process.execPath, ['test/fixtures/throttled-agent.mjs'], { env: { ...process.env, NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const port = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\d+)/.exec(output);
      if (match) resolve(match[1]);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the throttled agent exited with ${code}:\n${output}`)));
  });
  target = { httpUrl: `http://127.0.0.1:${port}`, grpc: undefined as never };
}, 30_000);

afterAll(async () => {
  if (child?.exitCode === null) {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});

it('counts per principal and answers 429 / RESOURCE_EXHAUSTED with Retry-After past the limit, on both HTTP bindings', async () => {
  const thrice = async (binding: 'JSONRPC' | 'HTTP+JSON', key: string) => {
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push(await call(target, binding, 'ListTasks', {}, { 'X-API-Key': key }));
    return outcomes;
  };
  const alice = await thrice('JSONRPC', 'key-alice');
  expect(alice.map((outcome) => outcome.status)).toEqual(['OK', 'OK', 'RESOURCE_EXHAUSTED']);
  expect(alice[2]).toMatchObject({ httpStatus: 429, jsonRpcCode: -31429 });
  expect(Number(alice[2].retryAfter)).toBeGreaterThan(0);
  // The same operation, another principal: a fresh allowance.
  const bob = await thrice('HTTP+JSON', 'key-bob');
  expect(bob.map((outcome) => outcome.status)).toEqual(['OK', 'OK', 'RESOURCE_EXHAUSTED']);
  expect(bob[2].httpStatus).toBe(429);
  expect(Number(bob[2].retryAfter)).toBeGreaterThan(0);
});
