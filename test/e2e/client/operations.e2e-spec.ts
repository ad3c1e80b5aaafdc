import { lastValueFrom, toArray } from 'rxjs';
import {
  A2aProtocolError,
  isMessage,
  isTask,
  type A2aAgentClient,
  type Message,
  type StreamResponse,
  type Task,
} from '../../../libs/a2a/src/client.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { CLIENT_BINDINGS, clientFor, within } from './fixtures/client-targets.js';
import { startSdkAgent, type RunningSdkAgent } from './fixtures/sdk-agent.server.js';

/**
 * Every operation of the client on every binding, against our conformance agent and an @a2a-js/sdk agent: results
 * typed as the protocol says, streams completing at their end, protocol errors as A2aProtocolError with the agent's
 * details.
 */
const SERVERS = ['nestjs-a2a', '@a2a-js/sdk'] as const;
type ServerName = (typeof SERVERS)[number];

let ours: RunningAgent;
let sdk: RunningSdkAgent;
const clients: A2aAgentClient[] = [];

beforeAll(async () => {
  [ours, sdk] = await Promise.all([startConformanceAgent({ withGrpc: true, push: false }), startSdkAgent()]);
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await Promise.all([ours?.close(), sdk?.close()]);
});

function client(server: ServerName, binding: (typeof CLIENT_BINDINGS)[number]): A2aAgentClient {
  const made = clientFor(server === 'nestjs-a2a' ? ours.url : sdk.url, binding);
  clients.push(made);
  return made;
}

const textOf = (message: Message | undefined) => message?.parts.map((part) => part.text ?? '').join('');
const artifactText = (task: Task) =>
  task.artifacts?.flatMap((artifact) => artifact.parts.map((part) => part.text)).join('');

describe.each(SERVERS)('against %s', (server) => {
  describe.each(CLIENT_BINDINGS)('over %s', (binding) => {
    let agent: A2aAgentClient;
    beforeAll(() => {
      agent = client(server, binding);
    });

    it('send: a completed Task with its artifact', async () => {
      const result = await agent.send('echo hello');
      expect(isTask(result)).toBe(true);
      expect(isMessage(result)).toBe(false);
      // The exported guards narrow the union: no cast needed to read the task's fields.
      if (!isTask(result)) throw new Error('expected a Task');
      expect(result.status.state).toBe('TASK_STATE_COMPLETED');
      expect(artifactText(result)).toBe('hello');
    });

    it('send: a direct Message', async () => {
      const result = await agent.send('message hi there');
      expect(isTask(result)).toBe(false);
      if (!isMessage(result)) throw new Error('expected a Message');
      expect(result.role).toBe('ROLE_AGENT');
      expect(textOf(result)).toBe('hi there');
    });

    it('stream: the task, three chunks and COMPLETED, then completes', async () => {
      const events = await within(lastValueFrom(agent.stream('stream 3').pipe(toArray())), 10_000, 'the stream');
      const chunks = events.filter(
        (event): event is Extract<StreamResponse, { artifactUpdate: unknown }> => 'artifactUpdate' in event,
      );
      expect(chunks.map((event) => event.artifactUpdate.artifact.parts[0].text)).toEqual([
        'chunk 1',
        'chunk 2',
        'chunk 3',
      ]);
      const last = events.at(-1)!;
      expect(
        'statusUpdate' in last ? last.statusUpdate.status.state : 'task' in last ? last.task.status.state : undefined,
      ).toBe('TASK_STATE_COMPLETED');
    });

    it('getTask and listTasks find the task', async () => {
      const task = (await agent.send('echo listed')) as Task;
      const got = await agent.getTask(task.id);
      expect(got).toMatchObject({ id: task.id, status: { state: 'TASK_STATE_COMPLETED' } });
      const page = await agent.listTasks({ pageSize: 100 });
      expect(page.tasks.map((listed) => listed.id)).toContain(task.id);
      expect(typeof page.nextPageToken).toBe('string');
    });

    it('cancelTask: a running task ends CANCELED', async () => {
      const task = (await agent.send('slow 5000', { configuration: { returnImmediately: true } })) as Task;
      expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(task.status.state);
      const canceled = await agent.cancelTask(task.id);
      expect(canceled.id).toBe(task.id);
      expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    });

    it('subscribe: the task first, then its events, completing at the terminal state', async () => {
      const task = (await agent.send('slow 600', { configuration: { returnImmediately: true } })) as Task;
      const events = await within(lastValueFrom(agent.subscribe(task.id).pipe(toArray())), 10_000, 'the subscription');
      expect('task' in events[0] && events[0].task.id).toBe(task.id);
      const last = events.at(-1)!;
      expect('statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    });

    it("a missing task is a TaskNotFound A2aProtocolError with the binding's code and the ErrorInfo", async () => {
      const error = (await agent.getTask('no-such-task').catch((caught: unknown) => caught)) as A2aProtocolError;
      expect(error).toBeInstanceOf(A2aProtocolError);
      expect(error).toMatchObject({ kind: 'TaskNotFound', reason: 'TASK_NOT_FOUND', binding });
      if (binding === 'JSONRPC') expect(error.jsonRpcCode).toBe(-32001);
      if (binding === 'HTTP+JSON') expect(error).toMatchObject({ httpStatus: 404, grpcStatus: 'NOT_FOUND' });
      if (binding === 'GRPC') expect(error).toMatchObject({ grpcCode: 5, grpcStatus: 'NOT_FOUND' });
    });

    it('canceling a completed task is TaskNotCancelable', async () => {
      const task = (await agent.send('echo done')) as Task;
      await expect(agent.cancelTask(task.id)).rejects.toMatchObject({
        kind: 'TaskNotCancelable',
        reason: 'TASK_NOT_CANCELABLE',
      });
    });

    it('a stream of a missing task errors with TaskNotFound', async () => {
      await expect(within(lastValueFrom(agent.subscribe('no-such-task')), 10_000)).rejects.toMatchObject({
        kind: 'TaskNotFound',
      });
    });
  });
});

describe.each(CLIENT_BINDINGS)('push notification configs over %s', (binding) => {
  it('an agent without push answers PushNotificationNotSupported (spec §3.3.4)', async () => {
    const agent = client('nestjs-a2a', binding);
    const task = (await agent.send('echo x')) as Task;
    await expect(agent.listPushConfigs(task.id)).rejects.toMatchObject({
      kind: 'PushNotificationNotSupported',
      reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
    });
  });

  it('create, get, list and delete on the @a2a-js/sdk agent', async () => {
    const agent = client('@a2a-js/sdk', binding);
    const task = (await agent.send('slow 3000', { configuration: { returnImmediately: true } })) as Task;
    const created = await agent.createPushConfig(task.id, {
      id: 'hook-1',
      url: 'https://push.example.com/hook',
      token: 't-1',
    });
    expect(created).toMatchObject({ id: 'hook-1', url: 'https://push.example.com/hook', taskId: task.id });
    expect(await agent.getPushConfig(task.id, 'hook-1')).toMatchObject({
      id: 'hook-1',
      url: 'https://push.example.com/hook',
    });
    expect((await agent.listPushConfigs(task.id)).configs.map((config) => config.id)).toEqual(['hook-1']);
    await agent.deletePushConfig(task.id, 'hook-1');
    expect((await agent.listPushConfigs(task.id)).configs).toEqual([]);
    await agent.cancelTask(task.id);
  });
});

describe('push notification configs on our agent with push on', () => {
  let pushAgent: RunningAgent;
  beforeAll(async () => {
    pushAgent = await startConformanceAgent({ withGrpc: true });
  });
  afterAll(() => pushAgent?.close());

  it.each(CLIENT_BINDINGS)('create, get, list and delete over %s', async (binding) => {
    const agent = clientFor(pushAgent.url, binding);
    clients.push(agent);
    const task = (await agent.send('ask')) as Task;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const created = await agent.createPushConfig(task.id, {
      url: 'https://push.example.com/hook',
      token: 'secret-token',
    });
    expect(created).toMatchObject({ taskId: task.id, url: 'https://push.example.com/hook' });
    expect(typeof created.id).toBe('string');
    expect(await agent.getPushConfig(task.id, created.id!)).toMatchObject({
      id: created.id,
      url: 'https://push.example.com/hook',
    });
    expect((await agent.listPushConfigs(task.id)).configs.map((config) => config.id)).toEqual([created.id]);
    await agent.deletePushConfig(task.id, created.id!);
    await expect(agent.getPushConfig(task.id, created.id!)).rejects.toMatchObject({ kind: 'TaskNotFound' });
  });
});

describe.each(CLIENT_BINDINGS)('getExtendedCard over %s', (binding) => {
  it('an agent that declares no extended card answers UnsupportedOperation (spec §3.3.4)', async () => {
    await expect(client('nestjs-a2a', binding).getExtendedCard()).rejects.toMatchObject({
      kind: 'UnsupportedOperation',
    });
  });
});

describe.each(CLIENT_BINDINGS)('aborting over %s', (binding) => {
  it("a caller's signal ends a unary call and a stream with an Aborted error; unsubscribing ends a stream quietly", async () => {
    const agent = client('nestjs-a2a', binding);
    const task = (await agent.send('slow 3000', { configuration: { returnImmediately: true } })) as Task;
    const unary = new AbortController();
    const pending = agent.send('slow 3000', { signal: unary.signal });
    setTimeout(() => unary.abort(), 100);
    await expect(pending).rejects.toMatchObject({ kind: 'Aborted' });
    const streaming = new AbortController();
    const stream = lastValueFrom(agent.subscribe(task.id, { signal: streaming.signal }));
    setTimeout(() => streaming.abort(), 100);
    await expect(within(stream, 5000)).rejects.toMatchObject({ kind: 'Aborted' });
    const events: StreamResponse[] = [];
    const subscription = agent
      .subscribe(task.id)
      .subscribe({ next: (event) => events.push(event), error: (error) => events.push({ error } as never) });
    await new Promise((resolve) => setTimeout(resolve, 200));
    subscription.unsubscribe();
    expect(events.map((event) => Object.keys(event)[0])).toEqual(['task']);
    await agent.cancelTask(task.id);
  });
});
