import {
  Role,
  TaskState,
  type Message,
  type Part,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import {
  ClientFactory,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
  type TransportFactory,
} from '@a2a-js/sdk/client';
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
import { HTTP_ADAPTERS, startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';

/**
 * The official @a2a-js/sdk client against the conformance agent, the same scenarios on each binding: what a
 * third-party client sees of the library, end to end over real sockets. Over gRPC the client finds the GRPC interface
 * in the card and connects to its `host:port`; errors come back as the SDK's typed errors, read from the ErrorInfo in
 * `grpc-status-details-bin`.
 */

/** How long `test-subscribe-message-id…` tasks stay WORKING here: long enough to subscribe, short enough to wait out. */
const SUBSCRIBE_HOLD_MS = 2000;

type ErrorClass = abstract new (...args: never[]) => A2AError;

/** One A2A error on each binding's wire (§4): its JSON-RPC code, HTTP status and gRPC status. */
interface WireError {
  jsonRpcCode: number;
  httpStatus: number;
  grpcStatus: grpc.status;
}

const WIRE_ERRORS = new Map<ErrorClass, WireError>([
  [TaskNotFoundError, { jsonRpcCode: -32001, httpStatus: 404, grpcStatus: grpc.status.NOT_FOUND }],
  [TaskNotCancelableError, { jsonRpcCode: -32002, httpStatus: 400, grpcStatus: grpc.status.FAILED_PRECONDITION }],
  [
    PushNotificationNotSupportedError,
    { jsonRpcCode: -32003, httpStatus: 400, grpcStatus: grpc.status.FAILED_PRECONDITION },
  ],
  [UnsupportedOperationError, { jsonRpcCode: -32004, httpStatus: 400, grpcStatus: grpc.status.FAILED_PRECONDITION }],
  [ContentTypeNotSupportedError, { jsonRpcCode: -32005, httpStatus: 400, grpcStatus: grpc.status.INVALID_ARGUMENT }],
  [VersionNotSupportedError, { jsonRpcCode: -32009, httpStatus: 400, grpcStatus: grpc.status.FAILED_PRECONDITION }],
]);

interface BindingCase {
  binding: 'JSONRPC' | 'HTTP+JSON' | 'GRPC';
  /** The SDK's transport; with `legacyVersion`, every call carries A2A-Version 0.3. */
  transport: (legacyVersion: boolean) => TransportFactory;
  /** Where the card says this binding lives. */
  address: (agent: RunningAgent) => string;
  /** What the SDK keeps of the wire error: the JSON-RPC code, the HTTP status or the gRPC status. */
  wire: (error: WireError) => object;
}

/** Sends `A2A-Version: 0.3` whatever the client stamped (it always stamps its own), below it, in the fetch it uses. */
const legacyFetch: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('A2A-Version', '0.3');
  return fetch(input, { ...init, headers });
};

/** The same on gRPC: rewrites `a2a-version` on every call. */
const legacyInterceptor: grpc.Interceptor = (options, nextCall) =>
  new grpc.InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      metadata.set('a2a-version', '0.3');
      next(metadata, listener);
    },
  });

const bindings: BindingCase[] = [
  {
    binding: 'JSONRPC',
    transport: (legacyVersion) => new JsonRpcTransportFactory({ fetchImpl: legacyVersion ? legacyFetch : undefined }),
    address: (agent) => `${agent.url}/`,
    wire: ({ jsonRpcCode }) => ({ envelopeCode: jsonRpcCode }),
  },
  {
    binding: 'HTTP+JSON',
    transport: (legacyVersion) => new RestTransportFactory({ fetchImpl: legacyVersion ? legacyFetch : undefined }),
    address: (agent) => agent.url,
    wire: ({ httpStatus }) => ({ statusCode: httpStatus }),
  },
  {
    binding: 'GRPC',
    transport: (legacyVersion) =>
      new GrpcTransportFactory({ grpcCallOptions: { interceptors: legacyVersion ? [legacyInterceptor] : [] } }),
    address: (agent) => agent.grpcAddress!,
    wire: ({ grpcStatus }) => ({ transport: 'grpc', status: grpcStatus }),
  },
];

// The same suite on both HTTP adapters: the bindings must not depend on which one the app uses.
describe.each(HTTP_ADAPTERS)('on %s', (adapter) => {
  let agent: RunningAgent;

  beforeAll(async () => {
    // Push off: spec §3.3.4 is among the cases (test/e2e/interop/sdk-push.e2e-spec.ts has the agent with push on).
    agent = await startConformanceAgent({ subscribeHoldMs: SUBSCRIBE_HOLD_MS, adapter, withGrpc: true, push: false });
  });
  afterAll(() => agent?.close());

  describe.each(bindings)('@a2a-js/sdk client over $binding', ({ binding, transport, address, wire }) => {
    let client: Client;

    const connect = (legacyVersion = false) =>
      new ClientFactory({ transports: [transport(legacyVersion)] }).createFromUrl(agent.url);
    const send = (message: Message, configuration?: Partial<NonNullable<SendMessageRequest['configuration']>>) =>
      client.sendMessage({
        tenant: '',
        message,
        metadata: undefined,
        configuration: configuration && { ...defaultConfiguration, ...configuration },
      });
    const sendTask = async (
      message: Message,
      configuration?: Partial<NonNullable<SendMessageRequest['configuration']>>,
    ) => asTask(await send(message, configuration));
    const stream = (message: Message) =>
      collect(client.sendMessageStream({ tenant: '', message, metadata: undefined, configuration: undefined }));
    const expectError = async (call: Promise<unknown>, type: ErrorClass) => {
      const error = await call.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(type);
      expect(error).toMatchObject(wire(WIRE_ERRORS.get(type)!));
    };

    beforeAll(async () => {
      client = await connect();
    });

    describe('discovery (spec §8.1, §8.3.1, §8.3.2)', () => {
      it('reads a card listing the three bindings (gRPC as host:port), and uses the one it was given', async () => {
        const card = await client.getAgentCard();
        expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.url, i.protocolVersion])).toEqual([
          ['JSONRPC', `${agent.url}/`, '1.0'],
          ['HTTP+JSON', agent.url, '1.0'],
          ['GRPC', agent.grpcAddress!, '1.0'],
        ]);
        expect(card.capabilities?.streaming).toBe(true);
        expect(client.transport.protocolName).toBe(binding);
        expect(card.supportedInterfaces.find((i) => i.protocolBinding === binding)?.url).toBe(address(agent));
      });
    });

    describe('SendMessage', () => {
      it('blocks until the task is terminal and returns its artifacts (spec §3.2.2)', async () => {
        const message = userMessage('echo hello world');
        const task = await sendTask(message);
        expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(task.id).not.toBe('');
        expect(task.contextId).not.toBe('');
        expect(task.artifacts).toHaveLength(1);
        expect(texts(task.artifacts[0].parts)).toEqual(['hello world']);
        expect(task.history.map((m) => m.messageId)).toContain(message.messageId);
      });

      it('returns at once, in a non-terminal state, with returnImmediately (spec §3.2.2)', async () => {
        const task = await sendTask(userMessage('slow 2000'), { returnImmediately: true });
        expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(task.status?.state);
        await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
      });

      it('answers with a direct Message and no task (spec §3.1.1)', async () => {
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
      it('streams the task, then WORKING, the artifact chunks in order and COMPLETED (spec §3.1.2, §3.5.2)', async () => {
        const events = await stream(userMessage('stream 5'));
        expect(events[0].payload?.$case).toBe('task');
        const task = events[0].payload!.value as Task;
        const states = events.flatMap((e) =>
          e.payload?.$case === 'task' || e.payload?.$case === 'statusUpdate' ? [e.payload.value.status?.state] : [],
        );
        // WORKING arrives either in the task itself or as the first status update, depending on when the stream attached.
        expect(states).toContain(TaskState.TASK_STATE_WORKING);
        expect(
          states.slice(0, -1).every((s) => s === TaskState.TASK_STATE_SUBMITTED || s === TaskState.TASK_STATE_WORKING),
        ).toBe(true);
        expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(events.at(-1)?.payload?.$case).toBe('statusUpdate');

        const chunks = events.flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? [e.payload.value] : []));
        expect(chunks.map((c) => [texts(c.artifact!.parts), c.append, c.lastChunk])).toEqual([
          [['chunk 1'], false, false],
          [['chunk 2'], true, false],
          [['chunk 3'], true, false],
          [['chunk 4'], true, false],
          [['chunk 5'], true, true],
        ]);
        expect(new Set(chunks.map((c) => c.artifact!.artifactId)).size).toBe(1);
        expect(chunks.every((c) => c.taskId === task.id && c.contextId === task.contextId)).toBe(true);

        const stored = await client.getTask({ tenant: '', id: task.id });
        expect(texts(stored.artifacts[0].parts)).toEqual(['chunk 1', 'chunk 2', 'chunk 3', 'chunk 4', 'chunk 5']);
      });

      it('streams exactly one message for a direct reply (spec §3.1.2)', async () => {
        const events = await stream(userMessage('message streamed'));
        expect(events).toHaveLength(1);
        expect(events[0].payload?.$case).toBe('message');
        expect(texts((events[0].payload!.value as Message).parts)).toEqual(['streamed']);
      });
    });

    describe('GetTask', () => {
      it('returns the task, with at most historyLength recent messages (spec §3.2.4, §3.1.3)', async () => {
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
      it('pages through one context with pageSize and nextPageToken (spec §3.1.4)', async () => {
        const contextId = randomUUID();
        const created = new Set<string>();
        for (const word of ['one', 'two', 'three'])
          created.add((await sendTask(userMessage(`echo ${word}`, { contextId }))).id);

        const query = {
          tenant: '',
          contextId,
          status: TaskState.TASK_STATE_UNSPECIFIED,
          statusTimestampAfter: undefined,
          pageSize: 2,
        };
        const page1 = await client.listTasks({ ...query, pageToken: '' });
        expect(page1).toMatchObject({ pageSize: 2, totalSize: 3 });
        expect(page1.tasks).toHaveLength(2);
        expect(page1.nextPageToken).not.toBe('');
        // The SDK turns an omitted `artifacts` into [], so this only shows none leaked; the binding suites check omission.
        expect(page1.tasks.every((t) => t.artifacts.length === 0)).toBe(true);

        const page2 = await client.listTasks({ ...query, pageToken: page1.nextPageToken, includeArtifacts: true });
        expect(page2.tasks).toHaveLength(1);
        expect(page2.nextPageToken).toBe('');
        expect(page2.tasks[0].artifacts).toHaveLength(1);

        expect(new Set([...page1.tasks, ...page2.tasks].map((t) => t.id))).toEqual(created);
        expect([...page1.tasks, ...page2.tasks].every((t) => t.contextId === contextId)).toBe(true);
      });
    });

    describe('CancelTask', () => {
      it('cancels a running task, idempotently (spec §3.1.5, §3.3.1)', async () => {
        const running = await sendTask(userMessage('slow 10000'), { returnImmediately: true });
        const canceled = await client.cancelTask({ tenant: '', id: running.id, metadata: undefined });
        expect(canceled.id).toBe(running.id);
        expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);

        const again = await client.cancelTask({ tenant: '', id: running.id, metadata: undefined });
        expect(again.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
        expect((await client.getTask({ tenant: '', id: running.id })).status?.state).toBe(
          TaskState.TASK_STATE_CANCELED,
        );
      });

      it('cancels an open task that is waiting for messages (spec §3.1.5)', async () => {
        const open = await sendTask(userMessage('keep this open'));
        expect(open.status?.state).toBe(TaskState.TASK_STATE_WORKING);
        const canceled = await client.cancelTask({ tenant: '', id: open.id, metadata: undefined });
        expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      });

      it('refuses to cancel a completed task: TaskNotCancelableError (spec §3.1.5, §5.4)', async () => {
        const done = await sendTask(userMessage('echo done'));
        await expectError(client.cancelTask({ tenant: '', id: done.id, metadata: undefined }), TaskNotCancelableError);
      });
    });

    describe('SubscribeToTask', () => {
      it('starts with the task and follows it to COMPLETED, on every subscriber (spec §3.5.2, §3.1.6)', async () => {
        const message = userMessage('hold on', { messageId: `test-subscribe-message-id-${randomUUID()}` });
        const started = await sendTask(message, { returnImmediately: true });
        expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(started.status?.state);

        const [a, b] = await Promise.all([
          collect(client.resubscribeTask({ tenant: '', id: started.id })),
          collect(client.resubscribeTask({ tenant: '', id: started.id })),
        ]);
        for (const events of [a, b]) {
          expect(events[0].payload?.$case).toBe('task');
          expect((events[0].payload!.value as Task).id).toBe(started.id);
          const last = events.at(-1)!.payload;
          expect(last?.$case).toBe('statusUpdate');
          expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        }
      });

      it('refuses a task that is already terminal: UnsupportedOperationError (spec §3.1.6)', async () => {
        const done = await sendTask(userMessage('echo done'));
        await expectError(streamError(client.resubscribeTask({ tenant: '', id: done.id })), UnsupportedOperationError);
      });
    });

    describe('multi-turn (spec §3.1.1, §7.6)', () => {
      it('INPUT_REQUIRED, then a follow-up on the same task completes it', async () => {
        const asked = await sendTask(userMessage('ask'));
        expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
        expect(texts(asked.status?.message?.parts ?? [])).not.toEqual([]);

        const answered = await sendTask(userMessage('Paris', { taskId: asked.id, contextId: asked.contextId }));
        expect(answered.id).toBe(asked.id);
        expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(texts(answered.artifacts.at(-1)!.parts)).toEqual(['answer: Paris']);
      });

      it('AUTH_REQUIRED with a status message, then a follow-up completes it', async () => {
        const waiting = await sendTask(userMessage('auth'));
        expect(waiting.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
        expect(texts(waiting.status?.message?.parts ?? [])).not.toEqual([]);

        const resumed = await sendTask(
          userMessage('here are my credentials', { taskId: waiting.id, contextId: waiting.contextId }),
        );
        expect(resumed.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      });

      it('an open task takes follow-ups, one more artifact each, and stays WORKING (spec §3.1.1)', async () => {
        const open = await sendTask(userMessage('tell me more'));
        expect(open.status?.state).toBe(TaskState.TASK_STATE_WORKING);
        expect(open.artifacts.map((a) => [a.name, texts(a.parts)])).toEqual([['response', ['You said: tell me more']]]);

        const next = await sendTask(userMessage('more', { taskId: open.id }));
        expect(next.status?.state).toBe(TaskState.TASK_STATE_WORKING);
        expect(next.artifacts.map((a) => texts(a.parts))).toEqual([['You said: tell me more'], ['You said: more']]);
        await client.cancelTask({ tenant: '', id: open.id, metadata: undefined });
      });
    });

    describe('terminal states (spec §3.1.1)', () => {
      it.each([
        ['echo finished', 'COMPLETED', TaskState.TASK_STATE_COMPLETED, false],
        ['fail', 'FAILED', TaskState.TASK_STATE_FAILED, true],
        ['reject', 'REJECTED', TaskState.TASK_STATE_REJECTED, true],
      ])(
        '"%s" ends the task %s, and the task takes no more messages',
        async (text, _name, state, withStatusMessage) => {
          const task = await sendTask(userMessage(text));
          expect(task.status?.state).toBe(state);
          if (withStatusMessage) expect(task.status?.message?.role).toBe(Role.ROLE_AGENT);
          await expectError(send(userMessage('anything', { taskId: task.id })), UnsupportedOperationError);
        },
      );
      // CANCELED: see CancelTask above.
    });

    describe('errors (§4)', () => {
      it('TaskNotFoundError for an unknown task on GetTask, CancelTask, SubscribeToTask and SendMessage (spec §3.4.2, §3.1.3, §3.1.5, §3.1.6)', async () => {
        const id = randomUUID();
        await expectError(client.getTask({ tenant: '', id }), TaskNotFoundError);
        await expectError(client.cancelTask({ tenant: '', id, metadata: undefined }), TaskNotFoundError);
        await expectError(streamError(client.resubscribeTask({ tenant: '', id })), TaskNotFoundError);
        await expectError(send(userMessage('hello', { taskId: id })), TaskNotFoundError);
      });

      it('UnsupportedOperationError for a message to a completed task (spec §3.1.1)', async () => {
        const done = await sendTask(userMessage('echo done'));
        await expectError(
          send(userMessage('one more', { taskId: done.id, contextId: done.contextId })),
          UnsupportedOperationError,
        );
      });

      it('ContentTypeNotSupportedError when no accepted output mode is produced (spec §3.1.1)', async () => {
        await expectError(
          send(userMessage('echo png please'), { acceptedOutputModes: ['image/png'] }),
          ContentTypeNotSupportedError,
        );
      });

      it('VersionNotSupportedError for A2A-Version 0.3 (spec §3.6.2)', async () => {
        const legacy = await connect(true);
        await expectError(legacy.getTask({ tenant: '', id: randomUUID() }), VersionNotSupportedError);
      });

      it('PushNotificationNotSupportedError: client-side from the card, and from the server (spec §3.3.4)', async () => {
        const config = {
          tenant: '',
          id: '',
          taskId: randomUUID(),
          url: 'https://example.com/hook',
          token: '',
          authentication: undefined,
        };
        expect(() => client.createTaskPushNotificationConfig(config)).toThrow(PushNotificationNotSupportedError);
        expect(() => client.getTaskPushNotificationConfig({ tenant: '', taskId: config.taskId, id: 'c1' })).toThrow(
          PushNotificationNotSupportedError,
        );
        expect(() =>
          client.listTaskPushNotificationConfig({ tenant: '', taskId: config.taskId, pageSize: 0, pageToken: '' }),
        ).toThrow(PushNotificationNotSupportedError);
        // Delete is not checked against the card by the SDK, so this one reaches the server.
        await expectError(
          client.deleteTaskPushNotificationConfig({ tenant: '', taskId: config.taskId, id: 'c1' }),
          PushNotificationNotSupportedError,
        );
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

  async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
    const events: StreamResponse[] = [];
    for await (const event of stream) events.push(event);
    return events;
  }

  /** The typed error a stream ends with: the JSON-RPC transport wraps it in a plain Error's `cause`, REST and gRPC throw it as is. */
  async function streamError(stream: AsyncGenerator<StreamResponse>): Promise<never> {
    try {
      await collect(stream);
    } catch (error) {
      throw error instanceof A2AError ? error : ((error as Error).cause ?? error);
    }
    throw new Error('The stream ended without an error');
  }
});
