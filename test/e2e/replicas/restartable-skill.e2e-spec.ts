import { Module } from '@nestjs/common';
import pg from 'pg';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  working,
  type A2aModuleOptions,
  type SkillContext,
  type SkillEvent,
  type Task,
} from '../../../libs/a2a/src/index.js';
import { migrateA2aSchema, PostgresTaskStore } from '../../../libs/a2a/src/postgres.js';
import { redisEventBus } from '../../../libs/a2a/src/redis.js';
import { TEST_REDIS_URL, testRedisAvailable, testRedisPrefix } from '../../fixtures/test-redis.js';
import { dropSchema, postgresReachable, TEST_POSTGRES_URL, testSchemaName } from '../../fixtures/postgres.fixture.js';
import { startTestApp } from '../../fixtures/test-app.js';
import { startNodeProcess, stopNodeProcess } from '../../fixtures/child-process.js';

/**
 * Restartable skills (issue 10, item 4): the replica running `@AgentSkill({ restartable: true })` is SIGKILLed; another
 * replica reaps its lease and runs the skill again on the same task, as run 2, to completion. Shut down gracefully
 * instead, with the skill outlasting its grace, the replica hands the run over the same way rather than failing it.
 */
const LEASE_TTL_MS = 900;
const available = (await postgresReachable('the restartable-skill suite')) && (await testRedisAvailable());
const describeWithServices = available ? describe : describe.skip;

/** The same skill as test/fixtures/restartable-replica.mjs: this replica must be able to run it again. */
@AgentSkill({
  id: 'count',
  name: 'Count',
  description: 'Counts slowly; safe to run again',
  tags: ['test'],
  default: true,
  restartable: true,
  maxAttempts: 2,
})
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

/** A replica of the count agent in this process, on the schema and Redis prefix given. */
function startReplica(
  pool: pg.Pool,
  schema: string,
  prefix: string,
  options: Pick<A2aModuleOptions, 'leaseTtlMs' | 'leaseRenewMs' | 'shutdownGraceMs'>,
) {
  @Module({
    imports: [
      A2aModule.forRoot({
        card: { name: 'Restartable', description: 'Counts' },
        taskStore: new PostgresTaskStore(pool, { schema }),
        eventBus: redisEventBus({ url: TEST_REDIS_URL, prefix }),
        security: { allowAnonymous: true, anonymousCallers: 'shared' },
        ...options,
      }),
    ],
    providers: [CountSkill],
  })
  class Replica {}
  return startTestApp(Replica);
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
    if (!existsSync('dist/libs/a2a/src/index.js'))
      throw new Error('dist/ is missing: run "npm run build" first (npm test does)');
    pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 4 });
    await migrateA2aSchema(pool, { schema });
    const b = await startReplica(pool, schema, prefix, { leaseTtlMs: LEASE_TTL_MS });
    bUrl = b.url;
    close = () => b.app.close();
    const started = await startNodeProcess(
      'test/fixtures/restartable-replica.mjs',
      {
        A2A_POSTGRES_URL: TEST_POSTGRES_URL,
        A2A_POSTGRES_SCHEMA: schema,
        A2A_REDIS_URL: TEST_REDIS_URL,
        A2A_REDIS_PREFIX: prefix,
        A2A_LEASE_TTL_MS: String(LEASE_TTL_MS),
      },
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
      body: JSON.stringify({
        message: { messageId: `m-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'count 6' }] },
        configuration: { returnImmediately: true },
      }),
    });
    const taskId = ((await sent.json()) as { task: Task }).task.id;
    const followed = fetch(`${bUrl}/a2a/rest/tasks/${taskId}:subscribe`, { headers: { 'a2a-version': '1.0' } }).then(
      (res) => res.text(),
    );
    await sleep(500);
    a.kill('SIGKILL');
    await once(a, 'exit');

    const stream = await followed;
    expect(stream).toContain('run 1, chunk 1');
    expect(stream).toContain('"nestjs-a2a/attempt":2');
    expect(stream).toContain('done in run 2');
    const task = (await (
      await fetch(`${bUrl}/a2a/rest/tasks/${taskId}`, { headers: { 'a2a-version': '1.0' } })
    ).json()) as Task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    // The message is in the history once, whatever the number of runs.
    expect(task.history?.filter((message) => message.role === 'ROLE_USER')).toHaveLength(1);
  }, 20_000);
});

describeWithServices('a restartable skill whose replica shuts down', () => {
  const schema = testSchemaName();
  const prefix = testRedisPrefix();
  let pool: pg.Pool;
  const replicas: Array<{ url: string; close: () => Promise<void> }> = [];

  /** A replica in this process; `shutdownGraceMs` short, so that the count outlasts it. */
  const replica = async () => {
    // A lease that would outlive the test: B can only take the run over because A handed it over.
    const started = await startReplica(pool, schema, prefix, {
      leaseTtlMs: 60_000,
      leaseRenewMs: 200,
      shutdownGraceMs: 200,
    });
    const running = { url: started.url, close: () => started.app.close() };
    replicas.push(running);
    return running;
  };

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 8 });
    await migrateA2aSchema(pool, { schema });
  });
  afterAll(async () => {
    await Promise.all(replicas.map((running) => running.close().catch(() => undefined)));
    await dropSchema(pool, schema);
    await pool.end();
  });

  it('hands its run over: another replica runs the skill again as run 2, and the task never FAILS', async () => {
    const a = await replica();
    const b = await replica();
    const sent = fetch(`${a.url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        message: { messageId: `m-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'count 6' }] },
      }),
    });
    await sleep(300);
    const followed = fetch(`${b.url}/a2a/rest/tasks/${await taskIdOn(b.url)}:subscribe`, {
      headers: { 'a2a-version': '1.0' },
    }).then((res) => res.text());
    await a.close();
    // The blocking caller on A is told to go elsewhere, not given a FAILED task.
    expect((await sent).status).toBe(503);
    const stream = await followed;
    expect(stream).toContain('"nestjs-a2a/attempt":2');
    expect(stream).toContain('done in run 2');
    expect(stream).not.toContain('TASK_STATE_FAILED');
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${schema}".a2a_task_leases`);
    expect(rows[0].n).toBe(0);
  }, 20_000);

  /** The one task on the replica at `url`. */
  async function taskIdOn(url: string): Promise<string> {
    const listed = (await (await fetch(`${url}/a2a/rest/tasks`, { headers: { 'a2a-version': '1.0' } })).json()) as {
      tasks: Task[];
    };
    return listed.tasks[0].id;
  }
});
