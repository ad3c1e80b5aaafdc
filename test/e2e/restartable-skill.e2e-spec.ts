import { Module } from '@nestjs/common';
import pg from 'pg';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { A2aModule, A2aSkillHandler, AgentSkill, artifact, complete, working, type SkillContext, type SkillEvent, type Task } from '../../libs/a2a/src/index.js';
import { migrateA2aSchema, PostgresTaskStore } from '../../libs/a2a/src/postgres.js';
import { redisEventBus } from '../../libs/a2a/src/redis.js';
import { TEST_REDIS_URL, testRedisAvailable, testRedisPrefix } from '../fixtures/test-redis.js';
import { dropSchema, postgresReachable, TEST_POSTGRES_URL, testSchemaName } from '../store/postgres.fixture.js';
import { startTestApp } from './test-app.js';
import { startNodeProcess, stopNodeProcess } from '../fixtures/child-process.js';

/**
 * Restartable skills (issue 10, item 4): the replica running `@AgentSkill({ restartable: true })` is SIGKILLed; another
 * replica reaps its lease and runs the skill again on the same task, as run 2, to completion.
 */
const LEASE_TTL_MS = 900;
const available = (await postgresReachable('the restartable-skill suite')) && (await testRedisAvailable());
const describeWithServices = available ? describe : describe.skip;

/** The same skill as test/fixtures/restartable-replica.mjs: this replica must be able to run it again. */
@AgentSkill({ id: 'count', name: 'Count', description: 'Counts slowly; safe to run again', tags: ['test'], default: true, restartable: true, maxAttempts: 2 })
class CountSkill extends A2aSkillHandler {
  async *handle(context: SkillContext): AsyncIterable<SkillEvent> {
    const n = Number(context.text.split(' ')[1]);
    yield working();
    for (let i = 1; i <= n; i++) {
      await sleep(200, undefined, { signal: context.signal }).catch(() => undefined);
      if (context.signal.aborted) return;
      yield artifact(`run ${context.attempt}, chunk ${i}`, { artifactId: 'count', append: i > 1 });
    }
    yield complete(`done in run ${context.attempt}`);
  }
}

describeWithServices('a restartable skill whose replica dies', () => {
  const schema = testSchemaName();
  const prefix = testRedisPrefix();
  let pool: pg.Pool;
  let close: () => Promise<void>;
  let bUrl: string;
  let a: ChildProcess;
  let aUrl: string;

  beforeAll(async () => {
    if (!existsSync('dist/libs/a2a/src/index.js')) throw new Error('dist/ is missing: run "npm run build" first (npm test does)');
    pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 4 });
    await migrateA2aSchema(pool, { schema });
    @Module({
      imports: [
        A2aModule.forRoot({
          card: { name: 'Restartable', description: 'Counts' },
          taskStore: new PostgresTaskStore(pool, { schema }),
          eventBus: redisEventBus({ url: TEST_REDIS_URL, prefix }),
          leaseTtlMs: LEASE_TTL_MS,
          security: { allowAnonymous: true },
        }),
      ],
      providers: [CountSkill],
    })
    class ReplicaB {}
    const b = await startTestApp(ReplicaB);
    bUrl = b.url;
    close = () => b.app.close();
    const started = await startNodeProcess(
      'test/fixtures/restartable-replica.mjs',
      { A2A_POSTGRES_URL: TEST_POSTGRES_URL, A2A_POSTGRES_SCHEMA: schema, A2A_REDIS_URL: TEST_REDIS_URL, A2A_REDIS_PREFIX: prefix, A2A_LEASE_TTL_MS: String(LEASE_TTL_MS) },
      /listening (\d+)/,
    );
    a = started.child;
    aUrl = `http://127.0.0.1:${started.match[1]}`;
  }, 30_000);

  afterAll(async () => {
    await stopNodeProcess(a, 'SIGKILL');
    await close?.();
    await dropSchema(pool, schema);
    await pool.end();
  });

  it('is run again by another replica, on the same task, as run 2, to completion', async () => {
    const sent = await fetch(`${aUrl}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ message: { messageId: `m-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'count 6' }] }, configuration: { returnImmediately: true } }),
    });
    const taskId = ((await sent.json()) as { task: Task }).task.id;
    const followed = fetch(`${bUrl}/a2a/rest/tasks/${taskId}:subscribe`, { headers: { 'a2a-version': '1.0' } }).then((res) => res.text());
    await sleep(500);
    a.kill('SIGKILL');
    await once(a, 'exit');

    const stream = await followed;
    expect(stream).toContain('run 1, chunk 1');
    expect(stream).toContain('"nestjs-a2a/attempt":2');
    expect(stream).toContain('done in run 2');
    const task = (await (await fetch(`${bUrl}/a2a/rest/tasks/${taskId}`, { headers: { 'a2a-version': '1.0' } })).json()) as Task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    // The message is in the history once, whatever the number of runs.
    expect(task.history?.filter((message) => message.role === 'ROLE_USER')).toHaveLength(1);
  }, 20_000);
});
