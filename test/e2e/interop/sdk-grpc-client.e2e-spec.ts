import { Role, TaskState, type Message, type Part, type SendMessageRequest, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, type Client } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import {
  A2AError,
  ContentTypeNotSupportedError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from '@a2a-js/sdk/errors';
import * as grpc from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import { asTask, userMessage } from './sdk-messages.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';

/**
 * The official @a2a-js/sdk gRPC client transport against the conformance agent: the scenarios of the HTTP interop
 * suite (sdk-client.e2e-spec.ts), over gRPC. The client finds the GRPC interface in the card and connects to its
 * `host:port`; errors come back as the SDK's typed errors, read from the ErrorInfo in `grpc-status-details-bin`.
 */

const SUBSCRIBE_HOLD_MS = 2000;

type ErrorClass = abstract new (...args: never[]) => A2AError;

/** Rewrites `a2a-version` on every call, below the SDK (which always stamps its own). */
const legacyVersion: grpc.Interceptor = (options, nextCall) =>
  new grpc.InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      metadata.set('a2a-version', '0.3');
      next(metadata, listener);
    },
  });

let agent: RunningAgent;
let client: Client;

const connect = (interceptors: grpc.Interceptor[] = []) =>
  new ClientFactory({ transports: [new GrpcTransportFactory({ grpcCallOptions: { interceptors } })] }).createFromUrl(agent.url);
const send = (message: Message, configuration?: Partial<NonNullable<SendMessageRequest['configuration']>>) =>
  client.sendMessage({ tenant: '', message, metadata: undefined, configuration: configuration && { ...defaultConfiguration, ...configuration } });
const sendTask = async (message: Message, configuration?: Partial<NonNullable<SendMessageRequest['configuration']>>) => asTask(await send(message, configuration));
const stream = (message: Message) => collect(client.sendMessageStream({ tenant: '', message, metadata: undefined, configuration: undefined }));

async function expectError(call: Promise<unknown>, type: ErrorClass, status: grpc.status): Promise<void> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  expect(error).toMatchObject({ transport: 'grpc', status });
}

beforeAll(async () => {
  // Push off: R52 is among the cases (test/e2e/interop/sdk-push.e2e-spec.ts has the agent with push on).
  agent = await startConformanceAgent({ subscribeHoldMs: SUBSCRIBE_HOLD_MS, withGrpc: true, push: false });
  client = await connect();
});
afterAll(() => agent?.close());

describe('@a2a-js/sdk client over GRPC', () => {
  describe('discovery (R12, R13, R15)', () => {
    it('reads a card listing the GRPC interface as host:port, and uses it', async () => {
      const card = await client.getAgentCard();
      expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.url, i.protocolVersion])).toEqual([
        ['JSONRPC', `${agent.url}/`, '1.0'],
        ['HTTP+JSON', agent.url, '1.0'],
        ['GRPC', agent.grpcAddress!, '1.0'],
      ]);
      expect(client.transport.protocolName).toBe('GRPC');
    });
  });

  describe('SendMessage', () => {
    it('blocks until the task is terminal and returns its artifacts (R32)', async () => {
      const message = userMessage('echo hello world');
      const task = await sendTask(message);
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(task.id).not.toBe('');
      expect(task.contextId).not.toBe('');
      expect(task.artifacts).toHaveLength(1);
      expect(texts(task.artifacts[0].parts)).toEqual(['hello world']);
      expect(task.history.map((m) => m.messageId)).toContain(message.messageId);
    });

    it('returns at once, in a non-terminal state, with returnImmediately (R33)', async () => {
      const task = await sendTask(userMessage('slow 2000'), { returnImmediately: true });
      expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(task.status?.state);
      await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    });

    it('answers with a direct Message and no task (R31)', async () => {
      const result = await send(userMessage('message hi there'));
      expect('messageId' in result).toBe(true);
      const reply = result as Message;
      expect(reply.role).toBe(Role.ROLE_AGENT);
      expect(texts(reply.parts)).toEqual(['hi there']);
      expect(reply.contextId).not.toBe('');
      expect(reply.taskId).toBe('');
    });

    it('returns the three part kinds of the data artifact (§2 Part)', async () => {
      const task = await sendTask(userMessage('data'));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      const [data, raw, url] = task.artifacts[0].parts;
      expect(data.content).toEqual({ $case: 'data', value: { ok: true, n: 42 } });
      expect(raw.content?.$case).toBe('raw');
      expect(Buffer.from(raw.content?.value as Uint8Array).toString('utf8')).toBe('hello');
      expect(raw).toMatchObject({ mediaType: 'text/plain', filename: 'hello.txt' });
      expect(url.content).toEqual({ $case: 'url', value: 'https://example.com/a.pdf' });
    });
  });

  describe('SendStreamingMessage', () => {
    it('streams the task, then WORKING, the artifact chunks in order and COMPLETED (R47, R48)', async () => {
      const events = await stream(userMessage('stream 5'));
      expect(events[0].payload?.$case).toBe('task');
      const task = events[0].payload!.value as Task;
      const states = events.flatMap((e) =>
        e.payload?.$case === 'task' || e.payload?.$case === 'statusUpdate' ? [e.payload.value.status?.state] : [],
      );
      expect(states).toContain(TaskState.TASK_STATE_WORKING);
      expect(states.slice(0, -1).every((s) => s === TaskState.TASK_STATE_SUBMITTED || s === TaskState.TASK_STATE_WORKING)).toBe(true);
      expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);

      const chunks = events.flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? [e.payload.value] : []));
      expect(chunks.map((c) => [texts(c.artifact!.parts), c.append, c.lastChunk])).toEqual([
        [['chunk 1'], false, false],
        [['chunk 2'], true, false],
        [['chunk 3'], true, false],
        [['chunk 4'], true, false],
        [['chunk 5'], true, true],
      ]);
      expect(chunks.every((c) => c.taskId === task.id && c.contextId === task.contextId)).toBe(true);
      const stored = await client.getTask({ tenant: '', id: task.id });
      expect(texts(stored.artifacts[0].parts)).toEqual(['chunk 1', 'chunk 2', 'chunk 3', 'chunk 4', 'chunk 5']);
    });

    it('streams exactly one message for a direct reply (R46)', async () => {
      const events = await stream(userMessage('message streamed'));
      expect(events).toHaveLength(1);
      expect(events[0].payload?.$case).toBe('message');
      expect(texts((events[0].payload!.value as Message).parts)).toEqual(['streamed']);
    });
  });

  describe('GetTask', () => {
    it('returns the task, with at most historyLength recent messages (R37, R38)', async () => {
      const first = userMessage('hello there');
      const task = await sendTask(first);
      expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
      const second = userMessage('and again', { taskId: task.id, contextId: task.contextId });
      await sendTask(second);

      const full = await client.getTask({ tenant: '', id: task.id });
      expect(full.history.map((m) => m.messageId)).toEqual([first.messageId, second.messageId]);
      const recent = await client.getTask({ tenant: '', id: task.id, historyLength: 1 });
      expect(recent.history.map((m) => m.messageId)).toEqual([second.messageId]);
      await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    });
  });

  describe('ListTasks', () => {
    it('pages through one context with pageSize and nextPageToken (R39, R40, R41)', async () => {
      const contextId = randomUUID();
      const created = new Set<string>();
      for (const word of ['one', 'two', 'three']) created.add((await sendTask(userMessage(`echo ${word}`, { contextId }))).id);

      const query = { tenant: '', contextId, status: TaskState.TASK_STATE_UNSPECIFIED, statusTimestampAfter: undefined, pageSize: 2 };
      const page1 = await client.listTasks({ ...query, pageToken: '' });
      expect(page1).toMatchObject({ pageSize: 2, totalSize: 3 });
      expect(page1.tasks).toHaveLength(2);
      expect(page1.nextPageToken).not.toBe('');
      expect(page1.tasks.every((t) => t.artifacts.length === 0)).toBe(true);

      const page2 = await client.listTasks({ ...query, pageToken: page1.nextPageToken, includeArtifacts: true });
      expect(page2.tasks).toHaveLength(1);
      expect(page2.nextPageToken).toBe('');
      expect(page2.tasks[0].artifacts).toHaveLength(1);
      expect(new Set([...page1.tasks, ...page2.tasks].map((t) => t.id))).toEqual(created);
    });
  });

  describe('CancelTask', () => {
    it('cancels a running task, idempotently (R43, R44, §6 #7)', async () => {
      const running = await sendTask(userMessage('slow 10000'), { returnImmediately: true });
      const canceled = await client.cancelTask({ tenant: '', id: running.id, metadata: undefined });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      const again = await client.cancelTask({ tenant: '', id: running.id, metadata: undefined });
      expect(again.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    });

    it('cancels an open task that is waiting for messages (R43)', async () => {
      const open = await sendTask(userMessage('keep this open'));
      const canceled = await client.cancelTask({ tenant: '', id: open.id, metadata: undefined });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    });

    it('refuses to cancel a completed task: TaskNotCancelableError / FAILED_PRECONDITION (R43, §4)', async () => {
      const done = await sendTask(userMessage('echo done'));
      await expectError(client.cancelTask({ tenant: '', id: done.id, metadata: undefined }), TaskNotCancelableError, grpc.status.FAILED_PRECONDITION);
    });
  });

  describe('SubscribeToTask', () => {
    it('starts with the task and follows it to COMPLETED, on every subscriber (R49, R50)', async () => {
      const message = userMessage('hold on', { messageId: `test-subscribe-message-id-${randomUUID()}` });
      const started = await sendTask(message, { returnImmediately: true });
      const [a, b] = await Promise.all([
        collect(client.resubscribeTask({ tenant: '', id: started.id })),
        collect(client.resubscribeTask({ tenant: '', id: started.id })),
      ]);
      for (const events of [a, b]) {
        expect(events[0].payload?.$case).toBe('task');
        expect((events[0].payload!.value as Task).id).toBe(started.id);
        const last = events.at(-1)!.payload;
        expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      }
    });

    it('refuses a task that is already terminal: UnsupportedOperationError / FAILED_PRECONDITION (R50)', async () => {
      const done = await sendTask(userMessage('echo done'));
      await expectError(collect(client.resubscribeTask({ tenant: '', id: done.id })), UnsupportedOperationError, grpc.status.FAILED_PRECONDITION);
    });
  });

  describe('multi-turn (R28, R71)', () => {
    it('INPUT_REQUIRED, then a follow-up on the same task completes it', async () => {
      const asked = await sendTask(userMessage('ask'));
      expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const answered = await sendTask(userMessage('Paris', { taskId: asked.id, contextId: asked.contextId }));
      expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(texts(answered.artifacts.at(-1)!.parts)).toEqual(['answer: Paris']);
    });

    it('AUTH_REQUIRED with a status message, then a follow-up completes it', async () => {
      const waiting = await sendTask(userMessage('auth'));
      expect(waiting.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
      expect(texts(waiting.status?.message?.parts ?? [])).not.toEqual([]);
      const resumed = await sendTask(userMessage('here are my credentials', { taskId: waiting.id, contextId: waiting.contextId }));
      expect(resumed.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });
  });

  describe('terminal states (R28)', () => {
    it.each([
      ['echo finished', TaskState.TASK_STATE_COMPLETED],
      ['fail', TaskState.TASK_STATE_FAILED],
      ['reject', TaskState.TASK_STATE_REJECTED],
    ])('"%s" ends the task, which takes no more messages', async (text, state) => {
      const task = await sendTask(userMessage(text));
      expect(task.status?.state).toBe(state);
      await expectError(send(userMessage('anything', { taskId: task.id })), UnsupportedOperationError, grpc.status.FAILED_PRECONDITION);
    });
  });

  describe('errors (§4)', () => {
    it('TaskNotFoundError / NOT_FOUND for an unknown task on GetTask, CancelTask, SubscribeToTask and SendMessage', async () => {
      const id = randomUUID();
      await expectError(client.getTask({ tenant: '', id }), TaskNotFoundError, grpc.status.NOT_FOUND);
      await expectError(client.cancelTask({ tenant: '', id, metadata: undefined }), TaskNotFoundError, grpc.status.NOT_FOUND);
      await expectError(collect(client.resubscribeTask({ tenant: '', id })), TaskNotFoundError, grpc.status.NOT_FOUND);
      await expectError(send(userMessage('hello', { taskId: id })), TaskNotFoundError, grpc.status.NOT_FOUND);
    });

    it('ContentTypeNotSupportedError / INVALID_ARGUMENT when no accepted output mode is produced (R35)', async () => {
      await expectError(send(userMessage('echo png please'), { acceptedOutputModes: ['image/png'] }), ContentTypeNotSupportedError, grpc.status.INVALID_ARGUMENT);
    });

    it('VersionNotSupportedError / FAILED_PRECONDITION for a2a-version 0.3 (R9)', async () => {
      const legacy = await connect([legacyVersion]);
      await expectError(legacy.getTask({ tenant: '', id: randomUUID() }), VersionNotSupportedError, grpc.status.FAILED_PRECONDITION);
    });

    it('PushNotificationNotSupportedError / FAILED_PRECONDITION from the server (R52)', async () => {
      const taskId = randomUUID();
      expect(() => client.getTaskPushNotificationConfig({ tenant: '', taskId, id: 'c1' })).toThrow(PushNotificationNotSupportedError);
      await expectError(client.deleteTaskPushNotificationConfig({ tenant: '', taskId, id: 'c1' }), PushNotificationNotSupportedError, grpc.status.FAILED_PRECONDITION);
    });
  });
});

const defaultConfiguration: NonNullable<SendMessageRequest['configuration']> = {
  acceptedOutputModes: [],
  taskPushNotificationConfig: undefined,
  returnImmediately: false,
};



function texts(parts: Part[]): string[] {
  return parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : []));
}

async function collect(events: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const collected: StreamResponse[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}
