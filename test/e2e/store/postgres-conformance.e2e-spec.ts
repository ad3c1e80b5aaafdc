import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import pg from 'pg';
import type { ListTasksResponse, SendMessageResponse, Task } from '../../../libs/a2a/src/index.js';
import { postgresTaskStore, type PostgresTaskStore } from '../../../libs/a2a/src/postgres.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { dropSchema, postgresReachable, TEST_POSTGRES_URL, testSchemaName } from '../../fixtures/postgres.fixture.js';
import { freePort } from '../../fixtures/grpc-json.client.js';
import { startNodeProcess, stopNodeProcess } from '../../fixtures/child-process.js';

/**
 * The conformance agent with its tasks in PostgreSQL (CONFORMANCE-AGENT.md, "Replicas"): the protocol's task
 * operations over JSON-RPC, then the same answers from a new app on the same schema, as after a restart.
 */

const reachable = await postgresReachable('the PostgreSQL conformance e2e');
const describeWithPostgres = reachable ? describe : describe.skip;

/** Calls a JSON-RPC method at the agent's endpoint (`POST /`) and returns its result, or throws with the error. */
async function rpc<T>(url: string, method: string, params: object): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: unknown };
  if (body.result === undefined) throw new Error(`${method} answered ${res.status} ${JSON.stringify(body)}`);
  return body.result;
}

const send = async (
  url: string,
  text: string,
  extra: { taskId?: string; contextId?: string; returnImmediately?: boolean } = {},
) => {
  const { returnImmediately, ...ids } = extra;
  const message = { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }], ...ids };
  const result = await rpc<SendMessageResponse & { task: Task }>(url, 'SendMessage', {
    message,
    configuration: { returnImmediately },
  });
  return result.task;
};

describeWithPostgres('the conformance agent with its tasks in PostgreSQL', () => {
  const schema = testSchemaName();
  let pool: pg.Pool;

  beforeAll(() => {
    pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 2 });
  });
  afterAll(async () => {
    await dropSchema(pool, schema);
    await pool.end();
  });

  describe('in-process, then restarted on the same schema', () => {
    let store: PostgresTaskStore;
    let agent: RunningAgent | undefined;
    let echoed: Task;
    let canceled: Task;
    let asked: Task;
    let listed: ListTasksResponse;

    const boot = async () => {
      store = await postgresTaskStore({ connectionString: TEST_POSTGRES_URL, schema, migrate: true });
      agent = await startConformanceAgent({ taskStore: store });
      return agent.url;
    };

    beforeAll(async () => {
      await boot();
    });
    afterAll(async () => {
      await agent?.close();
    });

    it('answers SendMessage, GetTask, CancelTask and ListTasks from PostgreSQL', async () => {
      const url = agent!.url;
      echoed = await send(url, 'echo durable');
      expect(echoed.status.state).toBe('TASK_STATE_COMPLETED');
      expect(await rpc<Task>(url, 'GetTask', { id: echoed.id })).toEqual(echoed);

      const running = await send(url, 'slow 30000', { returnImmediately: true });
      canceled = await rpc<Task>(url, 'CancelTask', { id: running.id });
      expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
      expect((await rpc<Task>(url, 'GetTask', { id: running.id })).status.state).toBe('TASK_STATE_CANCELED');

      asked = await send(url, 'ask');
      expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');

      listed = await rpc<ListTasksResponse>(url, 'ListTasks', { includeArtifacts: true });
      const newestFirst = [asked, canceled, echoed].sort(
        (a, b) => b.status.timestamp!.localeCompare(a.status.timestamp!) || (a.id < b.id ? 1 : -1),
      );
      expect(listed.tasks.map((t) => t.id)).toEqual(newestFirst.map((t) => t.id));
      expect(listed.totalSize).toBe(3);

      const { rows } = await pool.query(`SELECT id, state FROM "${schema}".a2a_tasks ORDER BY status_ts DESC, id DESC`);
      const states = { [asked.id]: 6, [canceled.id]: 5, [echoed.id]: 3 };
      expect(rows).toEqual(newestFirst.map((t) => ({ id: t.id, state: states[t.id] })));
      // A blocking send of a quick skill is one write: the task created COMPLETED, with no event row after it; the
      // canceled task logged the CANCELED written after its creation.
      const events = await pool.query(
        `SELECT task_id, count(*)::int AS n FROM "${schema}".a2a_task_events GROUP BY task_id`,
      );
      expect(events.rows).toEqual([{ task_id: canceled.id, n: 1 }]);
      const versions = await pool.query(`SELECT version::int FROM "${schema}".a2a_tasks WHERE id = $1`, [echoed.id]);
      expect(versions.rows).toEqual([{ version: 1 }]);
    });

    it('gives the same answers after a restart, and continues a conversation begun before it', async () => {
      await agent!.close();
      agent = undefined;
      // Nest's shutdown hook closed the store, which ended the pool postgresTaskStore() had created (a task it has not
      // read, since it keeps the finished ones it wrote in memory).
      await expect(store.get(asked.id, { tenant: '', owner: 'anonymous' })).rejects.toThrow(/end on the pool/);

      const url = await boot();
      expect(await rpc<Task>(url, 'GetTask', { id: echoed.id })).toEqual(echoed);
      expect(await rpc<Task>(url, 'GetTask', { id: canceled.id })).toEqual(canceled);
      expect(await rpc<ListTasksResponse>(url, 'ListTasks', { includeArtifacts: true })).toEqual(listed);

      const answered = await send(url, 'blue', { taskId: asked.id, contextId: asked.contextId });
      expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
      expect(answered.artifacts?.[0].parts).toEqual([{ text: 'answer: blue' }]);
      expect(answered.history?.map((m) => m.messageId)).toEqual([
        ...asked.history!.map((m) => m.messageId),
        expect.any(String),
      ]);
    });
  });

  describe('built, configured by A2A_POSTGRES_URL and A2A_POSTGRES_SCHEMA', () => {
    const entry = 'dist/apps/conformance-agent/src/main.js';
    const builtSchema = testSchemaName();
    let child: ChildProcess;
    let base: string;

    beforeAll(async () => {
      if (!existsSync(entry)) throw new Error(`${entry} is missing: run "npm run build" first (npm test does)`);
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      ({ child } = await startNodeProcess(
        entry,
        {
          HOST: '127.0.0.1',
          PORT: String(port),
          GRPC_PORT: String(await freePort()),
          A2A_BASE_URL: base,
          A2A_POSTGRES_URL: TEST_POSTGRES_URL,
          A2A_POSTGRES_SCHEMA: builtSchema,
        },
        /Agent card at/,
      ));
    }, 30_000);

    afterAll(async () => {
      await stopNodeProcess(child);
      await dropSchema(pool, builtSchema);
    });

    it('migrates the schema at boot and keeps its tasks there', async () => {
      const task = await send(base, 'echo from main');
      const { rows } = await pool.query(`SELECT id, state FROM "${builtSchema}".a2a_tasks`);
      expect(rows).toEqual([{ id: task.id, state: 3 }]);
      expect(await rpc<Task>(base, 'GetTask', { id: task.id })).toEqual(task);
    });
  });
});
