import { jest } from '@jest/globals';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { A2aPushDispatcher, type A2aPushOptions, type StreamResponse } from '../../../libs/a2a/src/index.js';
import { migrateA2aSchema, PostgresTaskStore } from '../../../libs/a2a/src/postgres.js';
import { PushMessages } from '../../../libs/a2a/src/push/push.messages.js';
import { WebhookReceiver, type ReceivedRequest } from '../../fixtures/webhook-receiver.js';
import { WebhookTrap } from '../../fixtures/webhook-trap.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { dropSchema, postgresReachable, TEST_POSTGRES_URL, testSchemaName } from '../../fixtures/postgres.fixture.js';

/**
 * Push notifications on PostgreSQL (spec §4.3.3 with the store's outbox): conformance agents in process, each with its
 * own pool and PostgresTaskStore on one schema per test, as replicas or as a run and its restart. The outbox and the
 * task events in the schema are the oracle: every event the store committed for a webhook reaches it, once, in order.
 */

const reachable = await postgresReachable('the push-on-PostgreSQL suite');
const describeWithPostgres = reachable ? describe : describe.skip;

/** Fast retries, short timeouts: a claim is held totalTimeoutMs + 10 s (the dispatcher's margin). */
const PUSH = {
  allow: '127.0.0.1/32',
  baseDelayMs: 20,
  maxDelayMs: 100,
  pollIntervalMs: 50,
  connectTimeoutMs: 500,
  headersTimeoutMs: 500,
  totalTimeoutMs: 1000,
};

interface RpcAnswer<T> {
  result?: T;
  error?: { code: number; message: string };
}

async function rpc<T = Record<string, unknown>>(
  agent: RunningAgent,
  method: string,
  params: object,
): Promise<RpcAnswer<T>> {
  const res = await fetch(agent.url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as RpcAnswer<T>;
}

const message = (text: string) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `check` holds, polling; fails with `what` after `ms`. */
async function eventually(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(20);
  }
}

const eventIdOf = (headers: IncomingHttpHeaders) => String(headers['x-a2a-event-id']);
const stateOf = (response: StreamResponse) =>
  'task' in response
    ? response.task.status.state
    : 'statusUpdate' in response
      ? response.statusUpdate.status.state
      : undefined;

/** A port nothing listens on (a webhook that is down), until {@link listenOn} opens it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A webhook on a given port (WebhookReceiver picks its own): records event ids and bodies, answers 204. */
async function listenOn(
  port: number,
): Promise<{ server: Server; received: Array<{ id: string; body: StreamResponse }> }> {
  const received: Array<{ id: string; body: StreamResponse }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        id: eventIdOf(request.headers),
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as StreamResponse,
      });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, received };
}

describeWithPostgres('push notifications on PostgreSQL', () => {
  let schema: string;
  let admin: pg.Pool;
  /** What a test started, stopped after it whatever its outcome: agents first, then webhooks, then pools. */
  let agents: RunningAgent[];
  let servers: Array<() => Promise<void>>;
  let pools: pg.Pool[];

  beforeAll(() => {
    admin = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 3 });
  });
  afterAll(() => admin.end());

  beforeEach(async () => {
    schema = testSchemaName();
    agents = [];
    servers = [];
    pools = [];
    await migrateA2aSchema(admin, { schema });
  });
  afterEach(async () => {
    await Promise.allSettled(agents.map((agent) => agent.close()));
    await Promise.allSettled(servers.map((stop) => stop()));
    await Promise.allSettled(pools.map((pool) => pool.end()));
    await dropSchema(admin, schema);
  });

  /** An agent on this test's schema, with its own pool and store: a replica, or a restart of one. */
  async function replica(
    push: Partial<typeof PUSH> & Pick<A2aPushOptions, 'concurrency' | 'maxAttempts' | 'secrets'> = {},
    { endPoolOnClose = false } = {},
  ) {
    const pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 5 });
    if (!endPoolOnClose) pools.push(pool);
    // endPoolOnClose: as a deployed agent's store (postgresTaskStore()) ends its pool when the app closes.
    const store = new PostgresTaskStore(pool, { schema, retention: false, endPoolOnClose });
    const agent = await startConformanceAgent({ taskStore: store, push: { ...PUSH, ...push } });
    agents.push(agent);
    return { agent, store };
  }

  async function stop(agent: RunningAgent): Promise<void> {
    agents = agents.filter((a) => a !== agent);
    await agent.close();
  }

  /**
   * The event ids a webhook must get for a task, from what the store committed: the task itself (seq 1) for a config
   * given with the message that created it, then every stream event (not a history message) after `afterVersion`.
   */
  async function committedEventIds(taskId: string, afterVersion: number): Promise<string[]> {
    const { rows } = await admin.query<{ seq: string; payload: Array<Record<string, unknown>> }>(
      `SELECT seq, payload FROM "${schema}".a2a_task_events WHERE task_id = $1 ORDER BY seq`,
      [taskId],
    );
    const seqs = afterVersion === 0 ? [1] : [];
    for (const row of rows) {
      const first = Number(row.seq) - row.payload.length + 1;
      row.payload.forEach((change, i) => {
        if (!('historyMessage' in change) && first + i > afterVersion) seqs.push(first + i);
      });
    }
    return seqs.map((seq) => `${taskId}:${seq}`);
  }

  const outboxRows = async (taskId: string) =>
    (
      await admin.query<{ seq: string; attempts: number; claimed: boolean }>(
        `SELECT seq, attempts, claimed_until > now() AS claimed FROM "${schema}".a2a_push_outbox WHERE task_id = $1 ORDER BY seq`,
        [taskId],
      )
    ).rows.map((row) => ({ seq: Number(row.seq), attempts: row.attempts, claimed: row.claimed === true }));
  const outboxSize = async () =>
    (await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".a2a_push_outbox`)).rows[0].n;
  const deadLetterCount = async () =>
    (await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".a2a_push_dead_letters`)).rows[0].n;
  const versionOf = async (taskId: string) =>
    Number(
      (await admin.query<{ version: string }>(`SELECT version FROM "${schema}".a2a_tasks WHERE id = $1`, [taskId]))
        .rows[0].version,
    );

  it('delivers after a restart every event committed while the webhook was down, in order, none lost (the outbox outlives the agent)', async () => {
    const port = await closedPort();
    // Many attempts allowed: the first run must retry, not dead-letter, while the webhook is down.
    const first = await replica({ maxAttempts: 1000 });
    const sent = await rpc<{ task: { id: string; status: { state: string } } }>(first.agent, 'SendMessage', {
      message: message('stream 4'),
      configuration: { taskPushNotificationConfig: { url: `http://127.0.0.1:${port}/late` } },
    });
    expect(sent.result?.task.status.state).toBe('TASK_STATE_COMPLETED');
    const taskId = sent.result!.task.id;
    const expected = await committedEventIds(taskId, 0);
    // The task (created by the skill's first event, WORKING), four chunks, COMPLETED: versions 1 to 6.
    expect(expected).toEqual([1, 2, 3, 4, 5, 6].map((seq) => `${taskId}:${seq}`));

    // The first run tries the head of the queue, and fails, a few times.
    await eventually(
      'failed attempts on the closed port',
      async () => ((await outboxRows(taskId))[0]?.attempts ?? 0) >= 2,
    );
    await stop(first.agent);
    const left = await outboxRows(taskId);
    expect(left.map((row) => `${taskId}:${row.seq}`)).toEqual(expected);
    expect(left.slice(1).every((row) => row.attempts === 0)).toBe(true);
    expect(await deadLetterCount()).toBe(0);

    // The webhook comes up; nobody reads the outbox until the agent is back.
    const webhook = await listenOn(port);
    servers.push(() => new Promise((resolve) => webhook.server.close(() => resolve())));
    await sleep(300);
    expect(webhook.received).toEqual([]);

    const restarted = await replica({ maxAttempts: 1000 });
    // Normally at once; within a hold (totalTimeoutMs + 10 s) if the first run's shutdown raced a read of the outbox
    // (see the shutdown case below).
    await eventually('every committed event at the webhook', () => webhook.received.length >= expected.length, 15_000);
    await sleep(300);
    expect(webhook.received.map((r) => r.id)).toEqual(expected);
    expect('task' in webhook.received[0].body).toBe(true);
    expect(stateOf(webhook.received.at(-1)!.body)).toBe('TASK_STATE_COMPLETED');
    expect(await outboxSize()).toBe(0);
    expect(await restarted.agent.app.get(A2aPushDispatcher).deadLetters({ taskId })).toEqual([]);
  }, 40_000);

  it('delivers every event exactly once, in order, with two replicas reading one outbox (no duplicate event id)', async () => {
    // A delivers one at a time: the heads it cannot take meanwhile are B's to take, so both dispatchers deliver.
    const a = await replica({ concurrency: 1, pollIntervalMs: 20 });
    const b = await replica({ pollIntervalMs: 20 });
    const claimed = { a: 0, b: 0 };
    for (const [name, store] of [
      ['a', a.store],
      ['b', b.store],
    ] as const) {
      const claimDue = store.push.claimDue.bind(store.push);
      jest.spyOn(store.push, 'claimDue').mockImplementation(async (limit, holdMs) => {
        const due = await claimDue(limit, holdMs);
        claimed[name] += due.length;
        return due;
      });
    }
    const receiver = await WebhookReceiver.start();
    servers.push(() => receiver.stop());
    // A slow webhook (10 ms an event), so that deliveries overlap.
    receiver.respond = (_request, response) => void setTimeout(() => response.writeHead(204).end(), 10);

    const sent = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        rpc<{ task: { id: string; status: { state: string } } }>(a.agent, 'SendMessage', {
          message: message('stream 8'),
          configuration: { taskPushNotificationConfig: { url: receiver.url(`/task-${i}`) } },
        }),
      ),
    );
    const taskIds = sent.map((answer) => answer.result!.task.id);
    for (const answer of sent) expect(answer.result!.task.status.state).toBe('TASK_STATE_COMPLETED');
    const expected = new Map<string, string[]>();
    for (const taskId of taskIds) expected.set(taskId, await committedEventIds(taskId, 0));
    const total = [...expected.values()].reduce((n, ids) => n + ids.length, 0);
    // Each: the task (WORKING), eight chunks, COMPLETED.
    expect(total).toBe(4 * 10);

    await eventually('every event at the webhook', () => receiver.received.length >= total, 15_000);
    await eventually('an empty outbox', async () => (await outboxSize()) === 0);
    // Anything delivered twice would arrive by now: a duplicate needs a claim to be given again.
    await sleep(500);
    const ids = receiver.received.map((r: ReceivedRequest) => eventIdOf(r.headers));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(total);
    taskIds.forEach((taskId, i) => {
      const ofTask = receiver.received.filter((r) => eventIdOf(r.headers).startsWith(`${taskId}:`));
      expect(ofTask.map((r) => eventIdOf(r.headers))).toEqual(expected.get(taskId));
      expect(ofTask.every((r) => r.path === `/task-${i}`)).toBe(true);
    });
    expect(await deadLetterCount()).toBe(0);
    // Both dispatchers delivered some of them, and between them each event once.
    expect(claimed.a).toBeGreaterThan(0);
    expect(claimed.b).toBeGreaterThan(0);
    expect(claimed.a + claimed.b).toBe(total);
  }, 40_000);

  it('gives a config created through replica B the later events of a task running on replica A', async () => {
    const a = await replica();
    const b = await replica();
    const receiver = await WebhookReceiver.start();
    servers.push(() => receiver.stop());

    const sent = await rpc<{ task: { id: string } }>(a.agent, 'SendMessage', {
      message: message('slow 2500'),
      configuration: { returnImmediately: true },
    });
    const taskId = sent.result!.task.id;
    await eventually(
      'the task WORKING on A',
      async () =>
        (await rpc<{ status: { state: string } }>(b.agent, 'GetTask', { id: taskId })).result?.status.state ===
        'TASK_STATE_WORKING',
    );
    const versionAtCreate = await versionOf(taskId);

    const created = await rpc<{ id: string }>(b.agent, 'CreateTaskPushNotificationConfig', {
      taskId,
      url: receiver.url('/from-b'),
      token: 'tok-b',
    });
    expect(created.result).toMatchObject({ taskId, url: receiver.url('/from-b'), token: 'tok-b' });
    // A sees it too: one store (an anonymous caller reads it without its token).
    expect((await rpc(a.agent, 'GetTaskPushNotificationConfig', { taskId, id: created.result!.id })).result).toEqual({
      taskId,
      id: created.result!.id,
      url: receiver.url('/from-b'),
    });

    await eventually('the COMPLETED status at the webhook', () =>
      receiver.received.some((r) => stateOf(JSON.parse(r.body) as StreamResponse) === 'TASK_STATE_COMPLETED'),
    );
    await eventually('an empty outbox', async () => (await outboxSize()) === 0);
    await sleep(300);
    const expected = await committedEventIds(taskId, versionAtCreate);
    expect(expected.length).toBeGreaterThan(0);
    expect(receiver.received.map((r) => eventIdOf(r.headers))).toEqual(expected);
    for (const request of receiver.received) {
      expect(request.path).toBe('/from-b');
      expect(request.headers['x-a2a-notification-token']).toBe('tok-b');
    }
    const last = JSON.parse(receiver.received.at(-1)!.body) as StreamResponse;
    expect(last).toMatchObject({ statusUpdate: { taskId, status: { state: 'TASK_STATE_COMPLETED' } } });
    expect(await deadLetterCount()).toBe(0);
  }, 30_000);

  it('starts no delivery once shutdown has returned, even if it was reading the outbox meanwhile, and leaves nothing held for the restart', async () => {
    // A deployed agent: its store ends the pool on shutdown, so whatever the dispatcher does after that is not recorded.
    const first = await replica({ maxAttempts: 1000 }, { endPoolOnClose: true });
    const receiver = await WebhookReceiver.start();
    servers.push(() => receiver.stop());
    // The next read of the outbox claims its rows, then waits for the test: shutdown begins while it is under way.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reading = false;
    const claimDue = first.store.push.claimDue.bind(first.store.push);
    jest.spyOn(first.store.push, 'claimDue').mockImplementation(async (limit, holdMs) => {
      const due = await claimDue(limit, holdMs);
      if (due.length > 0 && !reading) {
        reading = true;
        await gate;
      }
      return due;
    });

    const sent = await rpc<{ task: { id: string; status: { state: string } } }>(first.agent, 'SendMessage', {
      message: message('stream 2'),
      configuration: { taskPushNotificationConfig: { url: receiver.url('/shutdown') } },
    });
    const taskId = sent.result!.task.id;
    expect(sent.result!.task.status.state).toBe('TASK_STATE_COMPLETED');
    await eventually('the dispatcher inside its read of the outbox', () => reading);
    expect(receiver.received).toEqual([]);

    agents = agents.filter((agent) => agent !== first.agent);
    const closing = first.agent.close();
    // The read ends while the app is shutting down (shutdown allows in-flight work 2 s).
    await sleep(200);
    release();
    await closing;
    const atClose = receiver.received.length;
    await sleep(500);
    // "No new delivery starts" once the dispatcher has stopped: nothing reaches the webhook after close() returned.
    expect(receiver.received.map((r) => eventIdOf(r.headers)).slice(atClose)).toEqual([]);
    // And nothing is left held: the restart delivers what remains at once, none of it twice.
    const held = (await outboxRows(taskId)).filter((row) => row.claimed);
    expect(held).toEqual([]);

    const expected = await committedEventIds(taskId, 0);
    await replica({ maxAttempts: 1000 });
    const started = Date.now();
    await eventually(
      'every committed event at the webhook',
      () => new Set(receiver.received.map((r) => eventIdOf(r.headers))).size >= expected.length,
      15_000,
    );
    const tookMs = Date.now() - started;
    await sleep(300);
    expect(receiver.received.map((r) => eventIdOf(r.headers))).toEqual(expected);
    expect(tookMs).toBeLessThan(5_000);
    expect(await outboxSize()).toBe(0);
  }, 40_000);

  it('delivers events whose text holds a NUL character or a lone surrogate (the task store keeps such text)', async () => {
    const { agent } = await replica();
    const receiver = await WebhookReceiver.start();
    servers.push(() => receiver.stop());
    const text = 'odd \u0000 and \ud800 end';
    // Without a webhook the store keeps it (the TaskStore contract says so).
    const plain = await rpc<{ task: { status: { state: string } } }>(agent, 'SendMessage', {
      message: message(`echo ${text}`),
    });
    expect(plain.result?.task.status.state).toBe('TASK_STATE_COMPLETED');
    // A webhook must not change what the task can hold.
    const sent = await rpc<{
      task: { id: string; status: { state: string }; artifacts?: Array<{ parts: Array<{ text?: string }> }> };
    }>(agent, 'SendMessage', {
      message: message(`echo ${text}`),
      configuration: { taskPushNotificationConfig: { url: receiver.url('/odd') } },
    });
    expect(sent.error).toBeUndefined();
    expect(sent.result?.task.status.state).toBe('TASK_STATE_COMPLETED');
    const taskId = sent.result!.task.id;
    expect(sent.result!.task.artifacts?.[0].parts[0].text).toBe(text);
    const expected = await committedEventIds(taskId, 0);
    await eventually('every event at the webhook', () => receiver.received.length >= expected.length);
    expect(receiver.received.map((r) => eventIdOf(r.headers))).toEqual(expected);
    const chunks = receiver.received
      .map((r) => JSON.parse(r.body) as StreamResponse)
      .filter((b) => 'artifactUpdate' in b);
    expect(chunks.map((b) => ('artifactUpdate' in b ? b.artifactUpdate.artifact.parts[0].text : undefined))).toEqual([
      text,
    ]);
  });

  it('sends sealed secrets to no other URL: a row pointed elsewhere by a database writer opens to nothing, and nothing reaches it', async () => {
    const { agent } = await replica({ secrets: { keys: { k1: randomBytes(32) }, currentKeyId: 'k1' } });
    const receiver = await WebhookReceiver.start();
    const trap = await WebhookTrap.start();
    servers.push(
      () => receiver.stop(),
      () => trap.stop(),
    );
    const taskId = (await rpc<{ task: { id: string } }>(agent, 'SendMessage', { message: message('stays open') }))
      .result!.task.id;
    const config = {
      taskId,
      id: 'cfg',
      url: receiver.url('/mine'),
      token: 'TOKEN-s3cr3t',
      authentication: { scheme: 'Bearer', credentials: 'CRED-s3cr3t' },
    };
    // The row opens (an anonymous caller is shown no stored secret, so the answer is the config without them).
    const created = (await rpc<{ id: string }>(agent, 'CreateTaskPushNotificationConfig', config)).result!;
    expect((await rpc(agent, 'GetTaskPushNotificationConfig', { taskId, id: created.id })).result).toEqual({
      taskId,
      id: 'cfg',
      url: config.url,
      authentication: { scheme: 'Bearer' },
    });
    const [row] = (
      await admin.query<{ secrets: string }>(`SELECT secrets FROM "${schema}".a2a_push_configs WHERE task_id = $1`, [
        taskId,
      ])
    ).rows;
    expect(row.secrets).toMatch(/^v2\.k1\./);

    // The writer has the table, not the key: it points the row at its own webhook.
    await admin.query(`UPDATE "${schema}".a2a_push_configs SET url = $1 WHERE task_id = $2`, [
      `http://127.0.0.1:${trap.port}/mine`,
      taskId,
    ]);
    const read = await rpc(agent, 'GetTaskPushNotificationConfig', { taskId, id: 'cfg' });
    expect(read.error).toBeDefined();
    expect(JSON.stringify(read)).not.toContain('s3cr3t');
    await rpc(agent, 'CancelTask', { id: taskId });
    await eventually(
      'a dead letter',
      async () => (await agent.app.get(A2aPushDispatcher).deadLetters({ taskId })).length > 0,
    );
    const [letter] = await agent.app.get(A2aPushDispatcher).deadLetters({ taskId });
    expect(letter).toMatchObject({
      attempts: 1,
      lastError: expect.stringContaining(PushMessages.secretTampered('k1')),
    });
    await trap.settled();
    expect(trap.connections).toBe(0);
    expect(receiver.received).toHaveLength(0);
  });
});
