import { Module } from '@nestjs/common';
import pg from 'pg';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  working,
  type SkillEvent,
  type Task,
} from '../../../libs/a2a/src/index.js';
import { migrateA2aSchema, PostgresTaskStore } from '../../../libs/a2a/src/postgres.js';
import { dropSchema, postgresReachable, TEST_POSTGRES_URL, testSchemaName } from '../../fixtures/postgres.fixture.js';
import { ProbeSkill } from '../../fixtures/grpc-probe.fixture.js';
import { startTestApp } from '../../fixtures/test-app.js';

/**
 * Token-rate chunks on PostgreSQL (issue 10, item 2): chunks that come while the task is being written go to the store
 * together, one write for many, yet every chunk keeps its own version, in order, for streams and for resuming readers.
 */
/** Chunks and statuses interleaved in one burst: batching must not reorder them. */
@AgentSkill({ id: 'interleave', name: 'Interleave', description: 'Chunks and statuses', tags: ['test'] })
class InterleaveSkill extends A2aSkillHandler {
  async *handle(): AsyncIterable<SkillEvent> {
    yield working();
    for (let i = 1; i <= 30; i++) {
      yield artifact(`chunk ${i}`, { artifactId: 'a', append: i > 1 });
      if (i % 10 === 0) yield working(`after chunk ${i}`);
    }
    yield complete();
  }
}

const describeWithPostgres = (await postgresReachable('the batching suite')) ? describe : describe.skip;

describeWithPostgres('artifact chunks on PostgreSQL', () => {
  const schema = testSchemaName();
  let pool: pg.Pool;
  let url: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 4 });
    await migrateA2aSchema(pool, { schema });
    @Module({
      imports: [
        A2aModule.forRoot({
          card: { name: 'Chunks', description: 'Streams chunks' },
          taskStore: new PostgresTaskStore(pool, { schema }),
          security: { allowAnonymous: true },
        }),
      ],
      providers: [ProbeSkill, InterleaveSkill],
    })
    class ChunksModule {}
    const started = await startTestApp(ChunksModule);
    url = started.url;
    close = () => started.app.close();
  });
  afterAll(async () => {
    await close?.();
    await dropSchema(pool, schema);
    await pool.end();
  });

  it('writes a burst of 200 chunks in far fewer writes, every chunk numbered and kept, resumable from any of them', async () => {
    const res = await fetch(`${url}/a2a/rest/message:stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        message: { messageId: `m-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'big 200 16' }] },
      }),
    });
    const frames = (await res.text()).split('\n\n').filter((frame) => frame.includes('data: '));
    const ids = frames.map((frame) => Number(/^id: (\d+)$/m.exec(frame)![1]));
    expect(frames).toHaveLength(1 + 200 + 1);
    expect(ids).toEqual(ids.map((_, i) => ids[0] + i));
    const taskId = (JSON.parse(/^data: (.*)$/m.exec(frames[0])![1]) as { task: Task }).task.id;

    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${schema}".a2a_task_events WHERE task_id = $1`, [
      taskId,
    ]);
    expect(rows[0].n).toBeLessThan(100);
    const task = (await (
      await fetch(`${url}/a2a/rest/tasks/${taskId}`, { headers: { 'a2a-version': '1.0' } })
    ).json()) as Task;
    expect(task.artifacts![0].parts).toHaveLength(200);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');

    const store = new PostgresTaskStore(pool, { schema });
    const missed = await store.readChanges(taskId, { tenant: '', owner: 'anonymous' }, ids[100]);
    expect(Array.isArray(missed) && missed.map((change) => change.version)).toEqual(ids.slice(101));
  });

  it('keeps chunks and statuses in the order the skill emitted them', async () => {
    const res = await fetch(`${url}/a2a/rest/message:stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        message: {
          messageId: `m-${Date.now()}`,
          role: 'ROLE_USER',
          parts: [{ text: 'go' }],
          metadata: { 'nestjs-a2a/skillId': 'interleave' },
        },
      }),
    });
    const frames = (await res.text()).split('\n\n').filter((frame) => frame.includes('data: '));
    const labels = frames.slice(1).map((frame) => {
      const data = JSON.parse(/^data: (.*)$/m.exec(frame)![1]) as Record<string, any>;
      return data.artifactUpdate
        ? data.artifactUpdate.artifact.parts[0].text
        : (data.statusUpdate.status.message?.parts[0].text ?? data.statusUpdate.status.state);
    });
    const expected = Array.from({ length: 30 }, (_, i) => [
      `chunk ${i + 1}`,
      ...((i + 1) % 10 === 0 ? [`after chunk ${i + 1}`] : []),
    ]).flat();
    expect(labels).toEqual([...expected, 'TASK_STATE_COMPLETED']);
  });
});
