import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { type Task, type TaskArtifactUpdateEvent, type TaskStatusUpdateEvent } from '../../../libs/a2a/src/index.js';
import { InMemoryTaskStore } from '../../../libs/a2a/src/store.js';
import { redisEventBus, type RedisEventBus } from '../../../libs/a2a/src/redis.js';
import { SseDataReader } from '../../bench/sse-data.reader.js';
import { TEST_REDIS_URL, deleteTestRedisKeys, testRedisAvailable, testRedisPrefix } from '../../fixtures/test-redis.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';

const describeWithRedis = (await testRedisAvailable()) ? describe : describe.skip;

/**
 * Two conformance agents as two replicas of one agent: one Redis prefix, and one task store object standing in for a
 * shared database. A stream opened on A is followed through SubscribeToTask on B, whose events come through Redis.
 */
describeWithRedis('replicas sharing a Redis event bus', () => {
  const prefix = testRedisPrefix();
  let a: RunningAgent;
  let b: RunningAgent;
  let busOfB: RedisEventBus;

  beforeAll(async () => {
    const taskStore = new InMemoryTaskStore();
    busOfB = redisEventBus({ url: TEST_REDIS_URL, prefix });
    a = await startConformanceAgent({ taskStore, eventBus: redisEventBus({ url: TEST_REDIS_URL, prefix }) });
    b = await startConformanceAgent({ taskStore, eventBus: busOfB });
  });

  afterAll(async () => {
    // Closing the apps closes their buses, which leave no channel and no key behind.
    await Promise.all([a?.close(), b?.close()]);
    const admin = new Redis(TEST_REDIS_URL);
    try {
      expect(await admin.pubsub('CHANNELS', `${prefix}*`)).toEqual([]);
      expect(await deleteTestRedisKeys(admin, prefix)).toBe(0);
    } finally {
      await admin.quit();
    }
  });

  it('follows a slow task started on A through SubscribeToTask on B, to the end', async () => {
    const onA = await openStream(a, '/message:stream', { message: userMessage('slow 1000') });
    const [taskOnA] = await onA.take(1);
    const taskId = taskOnA.task!.id;

    const onB = await openStream(b, `/tasks/${taskId}:subscribe`);
    const [taskOnB] = await onB.take(1);
    await busOfB.ready(taskId);
    expect(taskOnB.task).toMatchObject({ id: taskId, status: { state: 'TASK_STATE_WORKING' } });

    const [eventsOnA, eventsOnB] = await Promise.all([onA.rest(), onB.rest()]);
    expect(eventsOnB).toEqual(eventsOnA);
    expect(eventsOnB.map(stateOf)).toEqual(['TASK_STATE_COMPLETED']);
  });

  it('gives B every event of a follow-up sent to A: status, artifact and the final status', async () => {
    const task = await sendMessage(a, userMessage('ask'));
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const onB = await openStream(b, `/tasks/${task.id}:subscribe`);
    const [taskOnB] = await onB.take(1);
    expect(taskOnB.task).toMatchObject({ id: task.id, status: { state: 'TASK_STATE_INPUT_REQUIRED' } });
    await busOfB.ready(task.id);

    const onA = await openStream(a, '/message:stream', {
      message: userMessage('blue', { taskId: task.id, contextId: task.contextId }),
    });
    const [eventsOnA, eventsOnB] = await Promise.all([onA.rest(), onB.rest()]);
    expect(eventsOnA.slice(1).map(kindOf)).toEqual(['statusUpdate', 'artifactUpdate', 'statusUpdate']);
    expect(eventsOnB).toEqual(eventsOnA.slice(1)); // A's follow-up stream opens with the task, B's had it already
    expect(eventsOnB[1].artifactUpdate!.artifact.parts).toEqual([{ text: 'answer: blue' }]);
    expect(stateOf(eventsOnB[2])).toBe('TASK_STATE_COMPLETED');
  });
});

function userMessage(text: string, on: { taskId?: string; contextId?: string } = {}) {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...on };
}

/** A StreamResponse, with its one member optional so that tests can look without narrowing. */
interface Frame {
  task?: Task;
  statusUpdate?: TaskStatusUpdateEvent;
  artifactUpdate?: TaskArtifactUpdateEvent;
}

const kindOf = (frame: Frame) => Object.keys(frame)[0];
const stateOf = (frame: Frame) => frame.statusUpdate?.status.state;

async function sendMessage(agent: RunningAgent, message: unknown): Promise<Task> {
  const res = await fetch(`${agent.url}/message:send`, {
    method: 'POST',
    headers: { 'A2A-Version': '1.0', 'Content-Type': 'application/json' },
    body: JSON.stringify({ message }),
  });
  if (res.status !== 200) throw new Error(`message:send answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { task: Task }).task;
}

/** An HTTP+JSON SSE stream, read frame by frame. */
async function openStream(agent: RunningAgent, path: string, body?: unknown) {
  const res = await fetch(`${agent.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      'A2A-Version': '1.0',
      Accept: 'text/event-stream',
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  const chunks = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const sse = new SseDataReader();
  const queued: Frame[] = [];
  let ended = false;
  const fill = async () => {
    const { done, value } = await chunks.read();
    if (done) ended = true;
    else queued.push(...sse.push(value).map((data) => JSON.parse(data) as Frame));
  };
  return {
    /** The next `n` frames. */
    async take(n: number): Promise<Frame[]> {
      while (queued.length < n && !ended) await fill();
      if (queued.length < n) throw new Error(`${path} ended after ${queued.length} of ${n} frames`);
      return queued.splice(0, n);
    },
    /** Every frame left, once the server has closed the stream. */
    async rest(): Promise<Frame[]> {
      while (!ended) await fill();
      return queued.splice(0);
    },
  };
}
