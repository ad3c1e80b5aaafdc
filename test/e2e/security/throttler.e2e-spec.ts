import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { call, type SecurityTarget } from '../../fixtures/security-calls.js';
import { startNodeProcess, stopNodeProcess } from '../../fixtures/child-process.js';

/**
 * @nestjs/throttler as one of A2aModule's guards (issue 9, abuse limits): it runs after the module's own guard, so it
 * counts per principal, and its 429 keeps its meaning on both HTTP bindings. The agent runs in plain Node from the
 * build (test/fixtures/throttled-agent.mjs): the throttler is CommonJS, which Jest cannot load next to Nest 12's ESM.
 */
let child: ChildProcess;
let target: SecurityTarget;

beforeAll(async () => {
  if (!existsSync('dist/libs/a2a/src/index.js'))
    throw new Error('dist/ is missing: run "npm run build" first (npm test does)');
  const started = await startNodeProcess('test/fixtures/throttled-agent.mjs', {}, /listening (\d+)/);
  child = started.child;
  target = { httpUrl: `http://127.0.0.1:${started.match[1]}`, grpc: undefined as never };
}, 30_000);

afterAll(() => stopNodeProcess(child));

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
