import pg from 'pg';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import type { Task } from '../../../libs/a2a/src/index.js';
import { migrateA2aSchema, PostgresTaskStore } from '../../../libs/a2a/src/postgres.js';
import { redisEventBus } from '../../../libs/a2a/src/redis.js';
import { freePort } from '../../fixtures/grpc-json.client.js';
import { startNodeProcess, stopNodeProcess } from '../../fixtures/child-process.js';
import { TEST_REDIS_URL, testRedisAvailable, testRedisPrefix } from '../../fixtures/test-redis.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { dropSchema, postgresReachable, TEST_POSTGRES_URL, testSchemaName } from '../../fixtures/postgres.fixture.js';

/**
 * Leases (issue 10, item 4): replica A, the built conformance agent in its own process, runs a long skill; A is
 * killed with SIGKILL; replica B's reaper takes A's expired lease and fails the task, so B's subscriber sees FAILED
 * with the reason instead of waiting forever. Paused instead (SIGSTOP) past its lease, then woken, A writes nothing
 * after that FAILED.
 */
const ENTRY = 'dist/apps/conformance-agent/src/main.js';
const LEASE_TTL_MS = 900;
const available = (await postgresReachable('the replica-death suite')) && (await testRedisAvailable());
const describeWithServices = available ? describe : describe.skip;

describeWithServices('a replica that dies', () => {
  const schema = testSchemaName();
  const prefix = testRedisPrefix();
  let pool: pg.Pool;
  let b: RunningAgent;
  let a: ChildProcess | undefined;
  let aUrl: string;

  beforeAll(async () => {
    if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run "npm run build" first (npm test does)`);
    pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 4 });
    await migrateA2aSchema(pool, { schema });
    b = await startConformanceAgent({
      taskStore: new PostgresTaskStore(pool, { schema }),
      eventBus: redisEventBus({ url: TEST_REDIS_URL, prefix }),
      leaseTtlMs: LEASE_TTL_MS,
    });
    const port = await freePort();
    aUrl = `http://127.0.0.1:${port}`;
    ({ child: a } = await startNodeProcess(
      ENTRY,
      {
        HOST: '127.0.0.1',
        PORT: String(port),
        GRPC_PORT: String(await freePort()),
        A2A_BASE_URL: aUrl,
        A2A_POSTGRES_URL: TEST_POSTGRES_URL,
        A2A_POSTGRES_SCHEMA: schema,
        A2A_REDIS_URL: TEST_REDIS_URL,
        A2A_REDIS_PREFIX: prefix,
        A2A_LEASE_TTL_MS: String(LEASE_TTL_MS),
      },
      /Agent card at/,
    ));
  }, 30_000);

  afterAll(async () => {
    await stopNodeProcess(a, 'SIGKILL');
    await b?.close();
    await dropSchema(pool, schema);
    await pool.end();
  });

  const getTask = async (url: string, taskId: string) =>
    (await (await fetch(`${url}/tasks/${taskId}`, { headers: { 'a2a-version': '1.0' } })).json()) as Task;

  // Fencing across processes: the paused replica's skill finishes its step after waking, and its write must not land.
  it('writes nothing after the FAILED another replica wrote while it was paused (SIGSTOP, then SIGCONT)', async () => {
    const SKILL_MS = 2500;
    const started = Date.now();
    const sent = await fetch(`${aUrl}/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        message: { messageId: `m-paused-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: `slow ${SKILL_MS}` }] },
        configuration: { returnImmediately: true },
      }),
    });
    const taskId = ((await sent.json()) as { task: Task }).task.id;
    await new Promise((resolve) => setTimeout(resolve, 300));
    a!.kill('SIGSTOP');
    let failed = await getTask(b.url, taskId);
    for (let i = 0; i < 100 && failed.status.state !== 'TASK_STATE_FAILED'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      failed = await getTask(b.url, taskId);
    }
    expect(failed.status.state).toBe('TASK_STATE_FAILED');
    const version = async () =>
      (await pool.query(`SELECT version FROM "${schema}".a2a_tasks WHERE id = $1`, [taskId])).rows[0].version as string;
    const failedAt = await version();
    // Woken after its step's end, A's overdue timers fire together: the skill's, which completes the task (a write
    // the fence must refuse), and the lease renewal's, which finds the lease gone.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + SKILL_MS + 200 - Date.now())));
    a!.kill('SIGCONT');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await version()).toBe(failedAt);
    expect((await getTask(b.url, taskId)).status).toEqual(failed.status);
    const { rows } = await pool.query(
      `SELECT max(seq)::text AS last FROM "${schema}".a2a_task_events WHERE task_id = $1`,
      [taskId],
    );
    expect(rows[0].last).toBe(String(failedAt));
    // A lives on, and serves.
    expect((await getTask(aUrl, taskId)).status.state).toBe('TASK_STATE_FAILED');
  }, 20_000);

  it('has its running task FAILED by another replica, whose streams end with the reason', async () => {
    const sent = await fetch(`${aUrl}/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        message: { messageId: `m-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'slow 60000' }] },
        configuration: { returnImmediately: true },
      }),
    });
    const taskId = ((await sent.json()) as { task: Task }).task.id;
    const followed = fetch(`${b.url}/tasks/${taskId}:subscribe`, { headers: { 'a2a-version': '1.0' } }).then((res) =>
      res.text(),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const killed = Date.now();
    a!.kill('SIGKILL');
    await once(a!, 'exit');

    const stream = await followed;
    expect(Date.now() - killed).toBeLessThan(LEASE_TTL_MS * 4);
    expect(stream).toContain('TASK_STATE_FAILED');
    expect(stream).toContain('stopped renewing its lease');
    const task = (await (
      await fetch(`${b.url}/tasks/${taskId}`, { headers: { 'a2a-version': '1.0' } })
    ).json()) as Task;
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${schema}".a2a_task_leases`);
    expect(rows[0].n).toBe(0);
  }, 20_000);
});
