import { Module, type INestApplication } from '@nestjs/common';
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  working,
  type SkillContext,
  type SkillEvent,
  type Task,
} from '../../../libs/a2a/src/index.js';
import { migrateA2aSchema, PostgresTaskStore } from '../../../libs/a2a/src/postgres.js';
import { startTestApp } from '../../fixtures/test-app.js';
import { dropSchema, postgresReachable, TEST_POSTGRES_URL, testSchemaName } from '../../fixtures/postgres.fixture.js';

/**
 * Fencing (issue 10, item 4): every write names the task's version, so a replica whose run was ended or taken over
 * elsewhere cannot write any more. When its skill's next event loses that race, the run stops there quietly: no
 * FAILED, no unexpected error. Here no replica has a bus, so no signal tells the stale one, and its leases renew
 * only every 20 s: the lost write is what stops it.
 */
const TICKS = 100;
const TICK_MS = 30;
/** Per replica: the runs of its ticker skill, by task, and whether each one's signal fired. */
type Runs = Map<string, { attempt: number; aborted: boolean }>;

function tickerSkill(runs: Runs) {
  @AgentSkill({
    id: 'ticker',
    name: 'Ticker',
    description: 'An artifact chunk every 30 ms, then done',
    tags: ['test'],
    restartable: true,
    maxAttempts: 2,
  })
  class TickerSkill extends A2aSkillHandler {
    async *handle(context: SkillContext): AsyncIterable<SkillEvent> {
      const run = { attempt: context.attempt, aborted: false };
      runs.set(context.taskId, run);
      context.signal.addEventListener('abort', () => (run.aborted = true));
      yield working();
      for (let i = 0; i < TICKS && !context.signal.aborted; i++) {
        yield artifact(`tick ${i} of run ${context.attempt}`, { artifactId: `run-${context.attempt}`, append: i > 0 });
        await sleep(TICK_MS);
      }
      yield complete();
    }
  }
  return TickerSkill;
}

const available = await postgresReachable('the fenced-writer suite');
const describeWithServices = available ? describe : describe.skip;

describeWithServices('a replica fenced out of a task it was running', () => {
  const schema = testSchemaName();
  let pool: pg.Pool;
  const replicas: Array<{ app: INestApplication; url: string; runs: Runs; errors: unknown[] }> = [];

  const replica = async (leaseTtlMs: number) => {
    const runs: Runs = new Map();
    const errors: unknown[] = [];
    @Module({
      imports: [
        A2aModule.forRoot({
          card: { name: 'Fencing agent', description: 'Fencing tests' },
          baseUrl: 'http://127.0.0.1',
          taskStore: new PostgresTaskStore(pool, { schema }),
          leaseTtlMs,
          onUnexpectedError: (error) => errors.push(error),
        }),
      ],
      providers: [tickerSkill(runs)],
    })
    class ReplicaModule {}
    const started = { ...(await startTestApp(ReplicaModule)), runs, errors };
    replicas.push(started);
    return started;
  };

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 8 });
    await migrateA2aSchema(pool, { schema });
  });
  // Each test's replicas only: another test's reaper could take its leases.
  afterEach(async () => {
    await Promise.all(replicas.splice(0).map((started) => started.app.close()));
  });
  afterAll(async () => {
    await dropSchema(pool, schema);
    await pool.end();
  });

  const post = async (url: string, path: string, body: object) =>
    (
      await fetch(`${url}/a2a/rest${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify(body),
      })
    ).json();
  const startTicker = async (url: string) =>
    (
      (await post(url, '/message:send', {
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'tick' }] },
        configuration: { returnImmediately: true },
      })) as { task: Task }
    ).task;
  const getTask = async (url: string, id: string) =>
    (await (await fetch(`${url}/a2a/rest/tasks/${id}`, { headers: { 'a2a-version': '1.0' } })).json()) as Task;
  const until = async (what: string, check: () => boolean | Promise<boolean>) => {
    for (let waited = 0; waited < 5000; waited += 20) {
      if (await check()) return;
      await sleep(20);
    }
    throw new Error(`still waiting for ${what}`);
  };

  it('stops its skill at the next write after a cancel written elsewhere, without FAILED or an unexpected error', async () => {
    const [a, b] = [await replica(60_000), await replica(60_000)];
    const task = await startTicker(a.url);
    await until('the skill to run on A', () => a.runs.has(task.id));
    const canceled = (await post(b.url, `/tasks/${task.id}:cancel`, {})) as Task;
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    // Before A's next renewal (20 s away): its next chunk's write lost, and that stopped the skill.
    await until("A's skill to get its abort signal", () => a.runs.get(task.id)!.aborted);
    await sleep(4 * TICK_MS);
    expect((await getTask(a.url, task.id)).status.state).toBe('TASK_STATE_CANCELED');
    expect(a.errors).toEqual([]);
  });

  it('stops its skill at the next write after another replica reaped its lease and ran the skill again', async () => {
    const a = await replica(60_000);
    // B reaps expired leases every 100 ms.
    const b = await replica(300);
    const task = await startTicker(a.url);
    await until('the skill to run on A', () => a.runs.has(task.id));
    // A stalls past its lease, as in a long pause: B takes the lease and runs the skill again (run 2).
    await pool.query(
      `UPDATE "${schema}".a2a_task_leases SET expires_at = now() - interval '1 second' WHERE task_id = $1`,
      [task.id],
    );
    await until('the skill to run again on B', () => b.runs.get(task.id)?.attempt === 2);
    await until("A's skill to get its abort signal", () => a.runs.get(task.id)!.aborted);
    expect(b.runs.get(task.id)!.aborted).toBe(false);
    await until(
      'the task to complete',
      async () => (await getTask(b.url, task.id)).status.state === 'TASK_STATE_COMPLETED',
    );
    const done = await getTask(b.url, task.id);
    // Nothing of A's run was written after B took over: run 2's artifact ends the task, whole.
    const run2 = done.artifacts!.find((part) => part.artifactId === 'run-2')!;
    expect(run2.parts.map((part) => (part as { text: string }).text)).toEqual(
      Array.from({ length: TICKS }, (_, i) => `tick ${i} of run 2`),
    );
    expect(a.errors).toEqual([]);
  });
});
