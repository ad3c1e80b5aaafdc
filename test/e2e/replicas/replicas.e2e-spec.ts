import pg from 'pg';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { Task } from '../../../libs/a2a/src/index.js';
import { migrateA2aSchema, PostgresTaskStore } from '../../../libs/a2a/src/postgres.js';
import { redisEventBus } from '../../../libs/a2a/src/redis.js';
import { TEST_REDIS_URL, testRedisAvailable, testRedisPrefix } from '../../fixtures/test-redis.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { dropSchema, postgresReachable, TEST_POSTGRES_URL, testSchemaName } from '../../fixtures/postgres.fixture.js';

/**
 * Two conformance agents as replicas of one agent, sharing PostgreSQL and a Redis bus (CONFORMANCE-AGENT.md,
 * "Replicas"): a task started on A is canceled through B and its skill stops on A; a stream is resumed on B with
 * Last-Event-ID after events committed on A (a SubscribeToTask, or the send itself sent again); a send retried on B gets
 * the task (or the message) A answered it with.
 */
const available = (await postgresReachable('the replicas suite')) && (await testRedisAvailable());
const describeWithServices = available ? describe : describe.skip;

describeWithServices('replicas sharing PostgreSQL and Redis', () => {
  const schema = testSchemaName();
  const prefix = testRedisPrefix();
  let pool: pg.Pool;
  let a: RunningAgent;
  let b: RunningAgent;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 8 });
    await migrateA2aSchema(pool, { schema });
    const replica = () =>
      startConformanceAgent({
        taskStore: new PostgresTaskStore(pool, { schema }),
        eventBus: redisEventBus({ url: TEST_REDIS_URL, prefix }),
      });
    a = await replica();
    b = await replica();
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await dropSchema(pool, schema);
    await pool.end();
  });

  const message = (text: string, extra: object = {}) => ({
    messageId: randomUUID(),
    role: 'ROLE_USER',
    parts: [{ text }],
    ...extra,
  });
  const post = async (agent: RunningAgent, path: string, body: object, headers: Record<string, string> = {}) =>
    fetch(`${agent.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
      body: JSON.stringify(body),
    });
  const send = async (agent: RunningAgent, body: object): Promise<Task> =>
    ((await (await post(agent, '/message:send', body)).json()) as { task: Task }).task;

  /** The id of the task `messageId` started, as `agent` lists it once it is there. */
  const taskOf = async (agent: RunningAgent, messageId: string): Promise<string> => {
    for (let i = 0; i < 100; i++) {
      const listed = (await (
        await fetch(`${agent.url}/tasks?pageSize=100`, { headers: { 'a2a-version': '1.0' } })
      ).json()) as { tasks: Task[] };
      const taskId = listed.tasks.find((task) => task.history?.some((m) => m.messageId === messageId))?.id;
      if (taskId) return taskId;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`No task of message ${messageId} on ${agent.url}`);
  };

  /** A blocking send of a slow task to `runner`, canceled through `canceller`, which answers CANCELED at once. */
  const cancelElsewhere = async (runner: RunningAgent, canceller: RunningAgent) => {
    const sent = message('slow 20000');
    const blocking = send(runner, { message: sent });
    const taskId = await taskOf(canceller, sent.messageId);
    const started = Date.now();
    const canceled = (await (await post(canceller, `/tasks/${taskId}:cancel`, {})).json()) as Task;
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    return { taskId, blocking, started };
  };

  it("cancels on B a task running on A: CANCELED at once, and A's skill and blocking caller stop with it", async () => {
    const { taskId, blocking, started } = await cancelElsewhere(a, b);
    const answerOnA = await blocking;
    expect(Date.now() - started).toBeLessThan(2000);
    expect(answerOnA.status.state).toBe('TASK_STATE_CANCELED');
    const again = (await (await post(a, `/tasks/${taskId}:cancel`, {})).json()) as Task;
    expect(again.status.state).toBe('TASK_STATE_CANCELED');
  });

  it("stops A's skill without the signal too: the CANCELED write drops A's lease, and A's next renewal finds it gone", async () => {
    // C shares the store but no bus: its cancel cannot send A the record.
    const [quickA, c] = await Promise.all([
      startConformanceAgent({
        taskStore: new PostgresTaskStore(pool, { schema }),
        eventBus: redisEventBus({ url: TEST_REDIS_URL, prefix }),
        leaseTtlMs: 900,
      }),
      startConformanceAgent({ taskStore: new PostgresTaskStore(pool, { schema }), leaseTtlMs: 900 }),
    ]);
    try {
      const { taskId, blocking, started } = await cancelElsewhere(quickA, c);
      const { rows } = await pool.query(
        `SELECT count(*)::int AS n FROM "${schema}".a2a_task_leases WHERE task_id = $1`,
        [taskId],
      );
      expect(rows[0].n).toBe(0);
      // A stops the skill at its next renewal (every 300 ms); its blocking caller then reads the task from the store.
      expect((await blocking).status.state).toBe('TASK_STATE_CANCELED');
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await Promise.all([quickA.close(), c.close()]);
    }
  });

  it('refuses on B a follow-up to a task whose skill still runs on A (its lease says so), and takes it once the run ended', async () => {
    const slow = await send(a, { message: message('slow 20000'), configuration: { returnImmediately: true } });
    const busy = await post(b, '/message:send', {
      message: message('more', { taskId: slow.id, contextId: slow.contextId }),
    });
    expect(busy.status).toBe(400);
    expect(((await busy.json()) as { error: { details: Array<{ reason?: string }> } }).error.details[0].reason).toBe(
      'UNSUPPORTED_OPERATION',
    );
    await post(b, `/tasks/${slow.id}:cancel`, {});

    const open = await send(a, { message: message('hello') });
    expect(open.status.state).toBe('TASK_STATE_WORKING');
    const followUp = await send(b, { message: message('again', { taskId: open.id, contextId: open.contextId }) });
    expect(followUp.id).toBe(open.id);
  });

  it('resumes on B, with Last-Event-ID, a stream of events committed on A', async () => {
    const asked = await send(a, { message: message('ask') });
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const seen = (await (
      await fetch(`${a.url}/tasks/${asked.id}`, { headers: { 'a2a-version': '1.0' } })
    ).json()) as Task;
    const stream = await fetch(`${a.url}/tasks/${asked.id}:subscribe`, { headers: { 'a2a-version': '1.0' } });
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    const firstFrame = (await reader.read()).value!;
    const lastId = /^id: (\d+)$/m.exec(firstFrame)![1];
    await reader.cancel();
    await send(a, { message: message('blue', { taskId: asked.id, contextId: seen.contextId }) });
    const resumed = await (
      await fetch(`${b.url}/tasks/${asked.id}:subscribe`, {
        headers: { 'a2a-version': '1.0', 'last-event-id': lastId },
      })
    ).text();
    const frames = resumed.split('\n\n').filter((frame) => frame.includes('data: '));
    const ids = frames.map((frame) => Number(/^id: (\d+)$/m.exec(frame)![1]));
    expect(ids[0]).toBeGreaterThan(Number(lastId));
    expect(ids).toEqual(ids.map((_, i) => ids[0] + i));
    expect(frames.map((frame) => Object.keys(JSON.parse(/^data: (.*)$/m.exec(frame)![1]))[0])).toEqual([
      'statusUpdate',
      'artifactUpdate',
      'statusUpdate',
    ]);
    expect(frames.at(-1)).toContain('TASK_STATE_COMPLETED');
  });

  it('resumes on B, with Last-Event-ID, a SendStreamingMessage sent to A and sent again to B', async () => {
    const sent = message('stream 3');
    const framesOf = (text: string) =>
      text
        .split('\n\n')
        .filter((frame) => frame.includes('data: '))
        .map((frame) => ({
          id: Number(/^id: (\d+)$/m.exec(frame)![1]),
          kind: Object.keys(JSON.parse(/^data: (.*)$/m.exec(frame)![1]))[0],
        }));
    const onA = framesOf(await (await post(a, '/message:stream', { message: sent })).text());
    expect(onA[0].kind).toBe('task');
    // PostgreSQL keeps a finished task's events: B replays exactly those after the id, from the store.
    const onB = framesOf(
      await (await post(b, '/message:stream', { message: sent }, { 'last-event-id': String(onA[0].id) })).text(),
    );
    expect(onB).toEqual(onA.slice(1));
    expect(
      framesOf(
        await (await post(b, '/message:stream', { message: sent }, { 'last-event-id': String(onA.at(-1)!.id) })).text(),
      ),
    ).toEqual([]);
  });

  it("gives B's stream, after its Redis connection drops, the events it missed (read back from PostgreSQL)", async () => {
    const asked = await send(a, { message: message('ask') });
    const stream = await fetch(`${b.url}/tasks/${asked.id}:subscribe`, { headers: { 'a2a-version': '1.0' } });
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = (await reader.read()).value!;
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Every subscriber connection of this database's clients drops: B's included; A publishes on another connection.
    const admin = new Redis(TEST_REDIS_URL);
    await admin.client('KILL', 'TYPE', 'pubsub');
    await admin.quit();
    await send(a, { message: message('green', { taskId: asked.id, contextId: asked.contextId }) });
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += chunk.value;
    const kinds = text
      .split('\n\n')
      .filter((frame) => frame.includes('data: '))
      .map((frame) => Object.keys(JSON.parse(/^data: (.*)$/m.exec(frame)![1]))[0]);
    expect(kinds).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
    expect(text).toContain('answer: green');
  });

  it('answers a send retried on B with the task A started for it', async () => {
    const sent = message('echo once');
    const onA = await send(a, { message: sent });
    const onB = await send(b, { message: sent });
    expect(onB.id).toBe(onA.id);
    expect(onB.status.state).toBe('TASK_STATE_COMPLETED');
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM "${schema}".a2a_tasks WHERE task::jsonb -> 'history' -> 0 ->> 'messageId' = $1`,
      [sent.messageId],
    );
    expect(rows[0].n).toBe(1);
  });

  it('answers a send retried on B with the message A answered it with, without a second run or a lease left', async () => {
    const sent = message('message hello');
    const onA = (await (await post(a, '/message:send', { message: sent })).json()) as {
      message: { messageId: string };
    };
    const onB = (await (await post(b, '/message:send', { message: sent })).json()) as {
      message: { messageId: string };
    };
    // Every run's reply has a fresh messageId: the same one means no second run.
    expect(onB).toEqual(onA);
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM "${schema}".a2a_task_leases WHERE task_id IN (SELECT task_id FROM "${schema}".a2a_message_ids WHERE message_id = $1)`,
      [sent.messageId],
    );
    expect(rows[0].n).toBe(0);
  });

  it('gives one task to the same send arriving at A and B at once', async () => {
    for (let i = 0; i < 5; i++) {
      const sent = message('slow 200');
      const [onA, onB] = await Promise.all([send(a, { message: sent }), send(b, { message: sent })]);
      expect(onB.id).toBe(onA.id);
      const { rows } = await pool.query(
        `SELECT count(*)::int AS n FROM "${schema}".a2a_tasks WHERE task::jsonb -> 'history' -> 0 ->> 'messageId' = $1`,
        [sent.messageId],
      );
      expect(rows[0].n).toBe(1);
    }
  });
});
