import {
  Role,
  TaskState,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { Client, ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { isLegacyAgentCard, LegacyJsonRpcTransport, parseLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { A2AError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { randomUUID } from 'node:crypto';
import { WebhookReceiver } from '../../fixtures/webhook-receiver.js';
import { asTask, userMessage } from './sdk-messages.js';
import { HTTP_ADAPTERS, startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';

/**
 * @a2a-js/sdk 1.3's v0.3 JSON-RPC client (`@a2a-js/sdk/compat/v0_3/client`) against the conformance agent with option
 * `compat.v03`: what a deployed v0.3 client sees, over real sockets. It is used two ways: bare, as a v0.3 client sends
 * (no `A2A-Version`), and inside the SDK's `Client`, which adds `A2A-Version: 0.3`. The SDK translates its v1.0-typed
 * calls to v0.3 on the wire and v0.3 answers back, so these tests read v1.0 types of the SDK.
 */

const SUBSCRIBE_HOLD_MS = 1500;
const FAST_RETRIES = {
  baseDelayMs: 20,
  maxDelayMs: 100,
  maxAttempts: 2,
  pollIntervalMs: 50,
  connectTimeoutMs: 500,
  headersTimeoutMs: 500,
  totalTimeoutMs: 1000,
};

type ErrorClass = abstract new (...args: never[]) => A2AError;

async function collect(events: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const all: StreamResponse[] = [];
  for await (const event of events) all.push(event);
  return all;
}

function texts(parts: Message['parts']): string[] {
  return parts.flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []));
}

async function expectError(call: Promise<unknown>, type: ErrorClass, code: number): Promise<void> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  expect(error).toMatchObject({ envelopeCode: code });
}

describe.each(HTTP_ADAPTERS)('on %s, with compat.v03', (adapter) => {
  let agent: RunningAgent;
  let endpoint: string;
  let v03Card: Record<string, unknown>;

  beforeAll(async () => {
    agent = await startConformanceAgent({
      adapter,
      subscribeHoldMs: SUBSCRIBE_HOLD_MS,
      compat: { v03: true },
      push: { allow: '127.0.0.1/32', ...FAST_RETRIES },
    });
    // A v0.3 client fetches the card without A2A-Version, and reads v0.3's fields of it.
    v03Card = (await (await fetch(`${agent.url}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    endpoint = v03Card.url as string;
  });
  afterAll(() => agent?.close());

  describe('discovery', () => {
    it("the card's v0.3 fields, as the SDK's v0.3 card parser reads them, lead to the JSON-RPC endpoint", () => {
      expect(endpoint).toBe(`${agent.url}/`);
      const { supportedInterfaces: _v1, ...v03Only } = v03Card;
      expect(isLegacyAgentCard(v03Only)).toBe(true);
      const parsed = parseLegacyAgentCard(v03Only);
      expect(parsed.supportedInterfaces[0]).toEqual({
        url: `${agent.url}/`,
        protocolBinding: 'JSONRPC',
        tenant: '',
        protocolVersion: '0.3.0',
      });
      expect(parsed.capabilities).toMatchObject({ streaming: true, pushNotifications: true });
      expect(parsed.skills.map((skill) => skill.id)).toEqual(['conformance']);
    });

    it("the SDK's v1.0 client, even with legacyCompat, still picks the 1.0 interface (v1.0 wins)", async () => {
      const client = await new ClientFactory({
        transports: [new JsonRpcTransportFactory({ legacyCompat: { enabled: true } })],
      }).createFromUrl(agent.url);
      expect(client.protocolVersion).toBe('1.0');
      const task = asTask(
        await client.sendMessage({
          tenant: '',
          message: userMessage('echo one'),
          metadata: undefined,
          configuration: undefined,
        }),
      );
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });
  });

  describe.each([
    { how: 'bare (no A2A-Version)', wrap: false },
    { how: "inside the SDK's Client (A2A-Version: 0.3)", wrap: true },
  ])('the v0.3 JSON-RPC client, $how', ({ wrap }) => {
    let client: Pick<
      Client,
      | 'sendMessage'
      | 'sendMessageStream'
      | 'getTask'
      | 'cancelTask'
      | 'resubscribeTask'
      | 'createTaskPushNotificationConfig'
      | 'getTaskPushNotificationConfig'
      | 'listTaskPushNotificationConfig'
      | 'deleteTaskPushNotificationConfig'
    >;
    let transport: LegacyJsonRpcTransport;
    /** The A2A-Version of every request the client sent (null: none). */
    const versions: Array<string | null> = [];

    beforeAll(() => {
      const fetchImpl: typeof fetch = (input, init) => {
        versions.push(new Headers(init?.headers).get('A2A-Version'));
        return fetch(input, init);
      };
      transport = new LegacyJsonRpcTransport({ endpoint, fetchImpl });
      client = wrap
        ? new Client(transport, parseLegacyAgentCard({ ...v03Card, supportedInterfaces: undefined }))
        : transport;
    });

    const send = (
      text: string,
      configuration?: Partial<NonNullable<SendMessageRequest['configuration']>>,
      extra?: Partial<Message>,
    ) =>
      client.sendMessage({
        tenant: '',
        message: userMessage(text, extra),
        metadata: undefined,
        configuration: configuration && {
          acceptedOutputModes: [],
          taskPushNotificationConfig: undefined,
          returnImmediately: false,
          ...configuration,
        },
      });
    const sendTask = async (
      text: string,
      configuration?: Partial<NonNullable<SendMessageRequest['configuration']>>,
      extra?: Partial<Message>,
    ): Promise<Task> => asTask(await send(text, configuration, extra));

    it('message/send: a task, blocking until it completes, with its artifacts and history', async () => {
      const message = userMessage('echo hello world');
      const task = asTask(
        await client.sendMessage({ tenant: '', message, metadata: undefined, configuration: undefined }),
      );
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(task.artifacts.map((artifact) => texts(artifact.parts))).toEqual([['hello world']]);
      expect(task.history.map((m) => m.messageId)).toContain(message.messageId);
      expect(task.history.find((m) => m.messageId === message.messageId)?.role).toBe(Role.ROLE_USER);
    });

    it('message/send: a direct message', async () => {
      const reply = (await send('message hi there')) as Message;
      expect('messageId' in reply).toBe(true);
      expect(reply.role).toBe(Role.ROLE_AGENT);
      expect(texts(reply.parts)).toEqual(['hi there']);
    });

    it('message/send with blocking false returns at once; tasks/cancel cancels', async () => {
      const task = await sendTask('slow 5000', { returnImmediately: true });
      expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(task.status?.state);
      const canceled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    });

    it('message/stream: the task, its chunks, the final status', async () => {
      const events = await collect(
        client.sendMessageStream({
          tenant: '',
          message: userMessage('stream 3'),
          metadata: undefined,
          configuration: undefined,
        }),
      );
      expect(events.map((event) => event.payload?.$case)).toEqual([
        'task',
        'artifactUpdate',
        'artifactUpdate',
        'artifactUpdate',
        'statusUpdate',
      ]);
      const chunks = events.flatMap((event) =>
        event.payload?.$case === 'artifactUpdate' ? [event.payload.value] : [],
      );
      expect(chunks.map((chunk) => [texts(chunk.artifact!.parts)[0], chunk.append, chunk.lastChunk])).toEqual([
        ['chunk 1', false, false],
        ['chunk 2', true, false],
        ['chunk 3', true, true],
      ]);
      const last = events.at(-1)!.payload;
      expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it('data and file artifacts come back as the SDK wrote them', async () => {
      const task = await sendTask('data');
      const parts = task.artifacts[0].parts;
      expect(parts.map((part) => part.content?.$case)).toEqual(['data', 'raw', 'url']);
      expect(parts[0].content?.value).toEqual({ ok: true, n: 42 });
      expect(Buffer.from(parts[1].content?.value as Uint8Array).toString()).toBe('hello');
      expect(parts[1]).toMatchObject({ filename: 'hello.txt', mediaType: 'text/plain' });
      expect(parts[2]).toMatchObject({ content: { value: 'https://example.com/a.pdf' }, mediaType: 'application/pdf' });
    });

    it('tasks/get: the task, with historyLength', async () => {
      const sent = await sendTask('echo get me');
      const task = await client.getTask({ tenant: '', id: sent.id, historyLength: 0 });
      expect(task.id).toBe(sent.id);
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(task.history).toEqual([]);
    });

    it('input-required, then a follow-up on the task', async () => {
      const asked = await sendTask('ask');
      expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const answered = await sendTask('42', undefined, { taskId: asked.id, contextId: asked.contextId });
      expect(answered.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(texts(answered.artifacts[0].parts)).toEqual(['answer: 42']);
    });

    it('tasks/resubscribe: follows a running task to its end', async () => {
      const task = await sendTask(
        'x',
        { returnImmediately: true },
        { messageId: `test-subscribe-message-id-${randomUUID()}` },
      );
      const events = await collect(client.resubscribeTask({ tenant: '', id: task.id }));
      expect(events[0].payload?.$case).toBe('task');
      const last = events.at(-1)!.payload;
      expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it('errors: TaskNotFound (-32001), TaskNotCancelable (-32002), UnsupportedOperation (-32004)', async () => {
      await expectError(
        client.getTask({ tenant: '', id: randomUUID(), historyLength: undefined }),
        TaskNotFoundError,
        -32001,
      );
      await expectError(
        client.cancelTask({ tenant: '', id: randomUUID(), metadata: undefined }),
        TaskNotFoundError,
        -32001,
      );
      const done = await sendTask('echo done');
      await expectError(
        client.cancelTask({ tenant: '', id: done.id, metadata: undefined }),
        TaskNotCancelableError,
        -32002,
      );
      // The conformance agent has no extended card.
      await expectError(transport.getExtendedAgentCard({ tenant: '' }), UnsupportedOperationError, -32004);
    });

    describe('tasks/pushNotificationConfig/set, get, list, delete', () => {
      let receiver: WebhookReceiver;
      beforeAll(async () => {
        receiver = await WebhookReceiver.start();
      });
      afterAll(() => receiver.stop());

      const config = (fields: Partial<TaskPushNotificationConfig>): TaskPushNotificationConfig => ({
        tenant: '',
        id: '',
        taskId: '',
        url: receiver.url(),
        token: '',
        authentication: undefined,
        ...fields,
      });

      it('sets configs with and without an id (then the task id), reads, lists and deletes them', async () => {
        // A task that stays WORKING (anything the conformance skill does not know).
        const task = await sendTask('keep open', { returnImmediately: true });
        const named = await client.createTaskPushNotificationConfig(
          config({
            taskId: task.id,
            id: 'hook-1',
            token: 'tk',
            authentication: { scheme: 'Bearer', credentials: 'secret' },
          }),
        );
        expect(named).toMatchObject({
          taskId: task.id,
          id: 'hook-1',
          url: receiver.url(),
          token: 'tk',
          authentication: { scheme: 'Bearer', credentials: 'secret' },
        });
        const unnamed = await client.createTaskPushNotificationConfig(config({ taskId: task.id }));
        expect(unnamed.id).toBe(task.id);

        expect(await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' })).toMatchObject(
          { id: 'hook-1', token: '' },
        );
        // Without a config id, v0.3's get reads the config named by the task's id.
        expect(await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: '' })).toMatchObject({
          id: task.id,
          url: receiver.url(),
        });

        const listed = await client.listTaskPushNotificationConfig({
          tenant: '',
          taskId: task.id,
          pageSize: 0,
          pageToken: '',
        });
        expect(listed.configs.map((c) => c.id).sort()).toEqual(['hook-1', task.id].sort());

        await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' });
        expect(
          (
            await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' })
          ).configs.map((c) => c.id),
        ).toEqual([task.id]);
        await expectError(
          client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' }),
          TaskNotFoundError,
          -32001,
        );
        await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
      });

      it("message/send's inline pushNotificationConfig is registered for the new task", async () => {
        const task = await sendTask('keep open', {
          returnImmediately: true,
          taskPushNotificationConfig: config({ token: 'inline' }),
        });
        const listed = await client.listTaskPushNotificationConfig({
          tenant: '',
          taskId: task.id,
          pageSize: 0,
          pageToken: '',
        });
        expect(listed.configs).toEqual([expect.objectContaining({ taskId: task.id, url: receiver.url(), token: '' })]);
        await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
      });

      it('a config on an unknown task: TaskNotFound (-32001)', async () => {
        await expectError(
          client.createTaskPushNotificationConfig(config({ taskId: randomUUID() })),
          TaskNotFoundError,
          -32001,
        );
      });
    });

    it('sent A2A-Version as this way of using it does (runs last)', () => {
      // Bare: none, as deployed v0.3 clients. Inside Client: 0.3 (the extended-card call above went to the transport itself).
      expect([...new Set(versions)].sort()).toEqual(wrap ? ['0.3', null] : [null]);
    });
  });
});

describe('without compat: the v0.3 client is refused as before', () => {
  let agent: RunningAgent;
  beforeAll(async () => {
    agent = await startConformanceAgent({ push: false });
  });
  afterAll(() => agent?.close());

  it('bare or with A2A-Version 0.3, every call is MethodNotFound (-32601); the card has no v0.3 field', async () => {
    const card = (await (await fetch(`${agent.url}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    expect(card).not.toHaveProperty('url');
    const transport = new LegacyJsonRpcTransport({ endpoint: `${agent.url}/` });
    const wrapped = new Client(
      transport,
      parseLegacyAgentCard({ ...card, url: `${agent.url}/`, supportedInterfaces: undefined }),
    );
    for (const client of [transport, wrapped]) {
      const codes = await Promise.all(
        [
          client.getTask({ tenant: '', id: randomUUID(), historyLength: undefined }),
          client.sendMessage({
            tenant: '',
            message: userMessage('echo x'),
            metadata: undefined,
            configuration: undefined,
          }),
          collect(
            client.sendMessageStream({
              tenant: '',
              message: userMessage('echo x'),
              metadata: undefined,
              configuration: undefined,
            }),
          ),
        ].map((call) =>
          call.then(
            () => undefined,
            (error: { envelopeCode?: number; cause?: { envelopeCode?: number } }) =>
              error.envelopeCode ?? error.cause?.envelopeCode,
          ),
        ),
      );
      expect(codes).toEqual([-32601, -32601, -32601]);
    }
  });
});
