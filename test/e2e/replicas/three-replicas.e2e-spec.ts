import { Redis } from 'ioredis';
import pg from 'pg';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { migrateA2aSchema } from '../../../libs/a2a/src/postgres.js';
import { startNodeProcess, stopNodeProcess } from '../../fixtures/child-process.js';
import { deleteTestRedisKeys, TEST_REDIS_URL, testRedisAvailable, testRedisPrefix } from '../../fixtures/test-redis.js';
import { dropSchema, postgresReachable, TEST_POSTGRES_URL, testSchemaName } from '../../fixtures/postgres.fixture.js';
import { freePort } from '../../fixtures/grpc-json.client.js';

/**
 * Three replicas of the built conformance agent, each its own process on loopback, sharing PostgreSQL and Redis
 * (issue 10, "Tests"): 1,000 streamed tasks sent round-robin, 50 at a time, none losing or repeating an event. Each
 * send stream is checked whole (the task, then versions one by one, every chunk once and in order, one final state);
 * the next replica, resuming that task's stream after its first frame, must give exactly the frames that followed it;
 * and the event log in PostgreSQL must hold each task's versions once each, up to the last frame's.
 */
const ENTRY = 'dist/apps/conformance-agent/src/main.js';
const TASKS = 1000;
const CHUNKS = 20;
const CONCURRENCY = 50;
const available = (await postgresReachable('the three-replicas suite')) && (await testRedisAvailable());
const describeWithServices = available ? describe : describe.skip;

interface Frame {
  id: number;
  kind: string;
  body: Record<string, any>;
}

function framesOf(text: string): Frame[] {
  return text
    .split('\n\n')
    .filter((block) => block.includes('data: '))
    .map((block) => {
      const body = JSON.parse(/^data: (.*)$/m.exec(block)![1]) as Record<string, any>;
      return { id: Number(/^id: (\d+)$/m.exec(block)![1]), kind: Object.keys(body)[0], body };
    });
}

/** What is wrong with one task's send stream, or undefined: the task, then every version once, all chunks in order, COMPLETED last. */
function flawOf(frames: Frame[]): string | undefined {
  if (frames[0]?.kind !== 'task') return `starts with ${frames[0]?.kind}`;
  for (let i = 1; i < frames.length; i++)
    if (frames[i].id !== frames[i - 1].id + 1) return `versions ${frames[i - 1].id} then ${frames[i].id}`;
  const chunks = frames
    .filter((frame) => frame.kind === 'artifactUpdate')
    .map((frame) => frame.body.artifactUpdate.artifact.parts[0].text);
  if (chunks.join() !== Array.from({ length: CHUNKS }, (_, i) => `chunk ${i + 1}`).join())
    return `chunks ${chunks.join()}`;
  const finals = frames.filter((frame) => frame.body.statusUpdate?.status.state === 'TASK_STATE_COMPLETED');
  if (finals.length !== 1 || finals[0] !== frames.at(-1))
    return `${finals.length} COMPLETED frames, the last frame a ${frames.at(-1)?.kind}`;
  return undefined;
}

/**
 * The body of a request on a connection of its own (`agent: false`): a pooled keep-alive socket that the server times
 * out just as a busy test reuses it fails the request with "other side closed", which says nothing of the replicas.
 */
function exchange(
  url: string,
  method: 'GET' | 'POST',
  headers: Record<string, string>,
  body?: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve(text));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describeWithServices('three replicas, each its own process', () => {
  const schema = testSchemaName();
  const prefix = testRedisPrefix();
  let pool: pg.Pool;
  const children: ChildProcess[] = [];
  const urls: string[] = [];

  beforeAll(async () => {
    if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run "npm run build" first (npm test does)`);
    pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 2 });
    await migrateA2aSchema(pool, { schema });
    await Promise.all(
      [1, 2, 3].map(async () => {
        const port = await freePort();
        const url = `http://127.0.0.1:${port}`;
        const { child } = await startNodeProcess(
          ENTRY,
          {
            HOST: '127.0.0.1',
            PORT: String(port),
            GRPC_PORT: String(await freePort()),
            A2A_BASE_URL: url,
            A2A_POSTGRES_URL: TEST_POSTGRES_URL,
            A2A_POSTGRES_SCHEMA: schema,
            A2A_REDIS_URL: TEST_REDIS_URL,
            A2A_REDIS_PREFIX: prefix,
          },
          /Agent card at/,
        );
        children.push(child);
        urls.push(url);
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await Promise.all(children.map((child) => stopNodeProcess(child)));
    const redis = new Redis(TEST_REDIS_URL);
    await deleteTestRedisKeys(redis, prefix).finally(() => redis.quit());
    await dropSchema(pool, schema);
    await pool.end();
  });

  const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };

  it(`streams ${TASKS} tasks round-robin without losing or repeating an event, as the other replicas and the log agree`, async () => {
    const flaws: string[] = [];
    const lastIds = new Map<string, number>();
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < TASKS; i = next++)
        await checkTask(i).catch((error: Error) => flaws.push(`task ${i}: ${error.message}`));
    };
    const checkTask = async (i: number) => {
      const [sender, resumer] = [urls[i % 3], urls[(i + 1) % 3]];
      const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: `stream ${CHUNKS}` }] };
      const frames = framesOf(await exchange(`${sender}/message:stream`, 'POST', headers, JSON.stringify({ message })));
      const flaw = flawOf(frames);
      if (flaw) {
        flaws.push(`task ${i} on ${sender}: ${flaw}`);
        return;
      }
      const taskId = frames[0].body.task.id as string;
      lastIds.set(taskId, frames.at(-1)!.id);
      const resumed = framesOf(
        await exchange(`${resumer}/tasks/${taskId}:subscribe`, 'GET', {
          ...headers,
          'last-event-id': String(frames[0].id),
        }),
      );
      if (JSON.stringify(resumed) !== JSON.stringify(frames.slice(1)))
        flaws.push(`task ${i} resumed on ${resumer}: ${resumed.length} frames, ${frames.length - 1} expected`);
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    // No replica died on the way.
    expect(children.map((child) => child.exitCode ?? child.signalCode)).toEqual([null, null, null]);
    expect(flaws).toEqual([]);
    expect(lastIds.size).toBe(TASKS);

    const { rows } = await pool.query<{ task_id: string; n: number; first: string; last: string }>(
      `SELECT task_id, count(*)::int AS n, min(seq)::text AS first, max(seq)::text AS last FROM "${schema}".a2a_task_events GROUP BY task_id`,
    );
    const logged = new Map(rows.map((row) => [row.task_id, row]));
    const logFlaws = [...lastIds].flatMap(([taskId, lastId]) => {
      const row = logged.get(taskId);
      if (!row) return [`${taskId}: no events`];
      return Number(row.last) === lastId && row.n === Number(row.last) - Number(row.first) + 1
        ? []
        : [`${taskId}: ${row.n} events, ${row.first}..${row.last}, last frame ${lastId}`];
    });
    expect(logFlaws).toEqual([]);
  }, 180_000);
});
