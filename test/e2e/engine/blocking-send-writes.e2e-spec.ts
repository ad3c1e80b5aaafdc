import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import type { TaskScope } from '../../../libs/a2a/src/context/call-context.js';
import type { TaskChange } from '../../../libs/a2a/src/task/task-reducer.js';
import { type Task } from '../../../libs/a2a/src/index.js';
import { InMemoryTaskStore, type StoredTask } from '../../../libs/a2a/src/store.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';

/** What the engine asks of the store, in order: the write count of a send is what a shared store pays in round trips. */
class CountingStore extends InMemoryTaskStore {
  calls: string[] = [];

  override async create(
    task: Task,
    skillId: string,
    scope: TaskScope,
    then: readonly TaskChange[] = [],
  ): Promise<StoredTask> {
    this.calls.push(`create ${task.status.state}${then.length > 0 ? ` then ×${then.length}` : ''}`);
    return super.create(task, skillId, scope, then);
  }

  override async update(
    id: string,
    scope: TaskScope,
    expectedVersion: number,
    changes: readonly TaskChange[],
  ): Promise<number> {
    this.calls.push(`update ×${changes.length}`);
    return super.update(id, scope, expectedVersion, changes);
  }

  override async get(id: string, scope: TaskScope): Promise<StoredTask | undefined> {
    this.calls.push('get');
    return super.get(id, scope);
  }
}

/**
 * A new task is written once the skill's first burst of events is over, in one write: a blocking send's caller gets
 * that write as its answer (no read); every other caller (stream, returnImmediately, an inline webhook) gets the task
 * as of the first event, and every event after it.
 */
describe('the writes of a send', () => {
  const store = new CountingStore();
  let agent: RunningAgent;

  beforeAll(async () => {
    agent = await startConformanceAgent({ taskStore: store, push: { allow: '127.0.0.1/32' } });
  });
  afterAll(async () => {
    await agent?.close();
  });
  beforeEach(() => {
    store.calls = [];
  });

  const message = (text: string) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] });
  const post = async (path: string, body: object) =>
    fetch(`${agent.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify(body),
    });
  const send = async (body: object): Promise<Task> =>
    ((await (await post('/message:send', body)).json()) as { task: Task }).task;

  it("writes a quick skill's run once, COMPLETED with its artifact, and answers with that write", async () => {
    const task = await send({ message: message('echo one write') });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts?.[0].parts).toEqual([{ text: 'one write' }]);
    expect(store.calls).toEqual(['create TASK_STATE_COMPLETED']);
  });

  it('writes what came before the skill waited, then each later event (slow: WORKING, a pause, COMPLETED)', async () => {
    const task = await send({ message: message('slow 50') });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(store.calls.filter((call) => call !== 'get')).toEqual(['create TASK_STATE_WORKING', 'update ×1']);
  });

  it('answers returnImmediately with the task as of the first event (WORKING), the rest of the burst logged after it', async () => {
    const task = await send({ message: message('echo quick'), configuration: { returnImmediately: true } });
    expect(task.status.state).toBe('TASK_STATE_WORKING');
    expect(store.calls).toEqual(['create TASK_STATE_WORKING then ×2']);
  });

  it('opens a stream with the task as of the first event, then every event of the burst, all from one write', async () => {
    const body = await (await post('/message:stream', { message: message('stream 3') })).text();
    const frames = body
      .split('\n\n')
      .filter((frame) => frame.includes('data: '))
      .map((frame) => ({
        id: /^id: (.*)$/m.exec(frame)?.[1],
        data: JSON.parse(frame.slice(frame.indexOf('data: ') + 6)) as Record<string, { status?: { state: string } }>,
      }));
    expect(frames.map((frame) => Object.keys(frame.data)[0])).toEqual([
      'task',
      'artifactUpdate',
      'artifactUpdate',
      'artifactUpdate',
      'statusUpdate',
    ]);
    expect(frames[0].data.task.status?.state).toBe('TASK_STATE_WORKING');
    // Each frame's SSE id is the version it brings the reader to, as with separate writes.
    expect(frames.map((frame) => frame.id)).toEqual(['1', '2', '3', '4', '5']);
    expect(store.calls.filter((call) => call !== 'get')).toEqual(['create TASK_STATE_WORKING then ×4']);
  });

  it('logs the burst when the send brings a webhook, which is told every event', async () => {
    const task = await send({
      message: message('echo hooked'),
      configuration: { taskPushNotificationConfig: { url: 'http://127.0.0.1:9/hook' } },
    });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(store.calls[0]).toBe('create TASK_STATE_WORKING then ×2');
  });
});
