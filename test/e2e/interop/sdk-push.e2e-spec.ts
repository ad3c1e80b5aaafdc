import {
  StreamResponse,
  TaskState,
  type Part,
  type SendMessageRequest,
  type Task,
  type TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import {
  ClientFactory,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
  type TransportFactory,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { A2AError, RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { V1PushNotificationSerializer } from '@a2a-js/sdk/server';
import * as grpc from '@grpc/grpc-js';
import { WebhookReceiver, type ReceivedRequest } from '../../fixtures/webhook-receiver.js';
import { asTask, userMessage } from './sdk-messages.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';

/**
 * Push notifications (spec §3.2.2, §3.3.4, §4.3.3, §13.2) with the official @a2a-js/sdk 1.3 client, on each of the
 * three bindings: the client's four push-config methods and its inline `configuration.taskPushNotificationConfig`
 * against the conformance agent (push on, loopback allowlisted, fast retries), and every delivery read back on a
 * loopback webhook with the SDK's own codec — the SDK ships no v1.0 webhook receiver, so its `StreamResponse.fromJSON`
 * and the body its `V1PushNotificationSerializer` would send stand for what an SDK-based receiver expects.
 */

const FAST_RETRIES = {
  baseDelayMs: 20,
  maxDelayMs: 100,
  maxAttempts: 3,
  pollIntervalMs: 50,
  connectTimeoutMs: 500,
  headersTimeoutMs: 500,
  totalTimeoutMs: 1000,
};
const DELIVERY_WAIT_MS = 5000;
const AUTH = { scheme: 'Bearer', credentials: 'x' };

type ErrorClass = abstract new (...args: never[]) => A2AError;
type ErrorKind = 'TaskNotFound' | 'InvalidParams';

interface BindingCase {
  binding: 'JSONRPC' | 'HTTP+JSON' | 'GRPC';
  transport: () => TransportFactory;
  /** What the SDK keeps of the wire error (§4): the JSON-RPC code, the HTTP status or the gRPC status. */
  wire: Record<ErrorKind, object>;
}

const bindings: BindingCase[] = [
  {
    binding: 'JSONRPC',
    transport: () => new JsonRpcTransportFactory(),
    wire: {
      TaskNotFound: { transport: 'jsonrpc', envelopeCode: -32001 },
      InvalidParams: { transport: 'jsonrpc', envelopeCode: -32602 },
    },
  },
  {
    binding: 'HTTP+JSON',
    transport: () => new RestTransportFactory(),
    wire: {
      TaskNotFound: { transport: 'rest', statusCode: 404 },
      InvalidParams: { transport: 'rest', statusCode: 400 },
    },
  },
  {
    binding: 'GRPC',
    transport: () => new GrpcTransportFactory(),
    wire: {
      TaskNotFound: { transport: 'grpc', status: grpc.status.NOT_FOUND },
      InvalidParams: { transport: 'grpc', status: grpc.status.INVALID_ARGUMENT },
    },
  },
];

let agent: RunningAgent;

beforeAll(async () => {
  agent = await startConformanceAgent({ push: { allow: '127.0.0.1/32', ...FAST_RETRIES }, withGrpc: true });
});
afterAll(() => agent?.close());

describe.each(bindings)(
  'push notifications with the @a2a-js/sdk client over $binding',
  ({ binding, transport, wire }) => {
    let client: Client;
    let receiver: WebhookReceiver;

    beforeAll(async () => {
      client = await new ClientFactory({ transports: [transport()] }).createFromUrl(agent.url);
    });
    beforeEach(async () => {
      receiver = await WebhookReceiver.start();
    });
    afterEach(() => receiver.stop());

    const configuration = (
      extra: Partial<NonNullable<SendMessageRequest['configuration']>> = {},
    ): NonNullable<SendMessageRequest['configuration']> => ({
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately: false,
      ...extra,
    });
    const sendTask = async (text: string, extra?: Partial<NonNullable<SendMessageRequest['configuration']>>) =>
      asTask(
        await client.sendMessage({
          tenant: '',
          message: userMessage(text),
          metadata: undefined,
          configuration: extra && configuration(extra),
        }),
      );
    /** A config as the SDK's client takes it (proto-shaped: every field present, empty when unset). */
    const pushConfig = (fields: Partial<TaskPushNotificationConfig>): TaskPushNotificationConfig => ({
      tenant: '',
      id: '',
      taskId: '',
      url: receiver.url(),
      token: '',
      authentication: undefined,
      ...fields,
    });
    const expectError = async (call: Promise<unknown>, type: ErrorClass, kind: ErrorKind) => {
      const error = await call.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(type);
      expect(error).toMatchObject(wire[kind]);
    };

    it('reads a card with push on, and talks over the binding asked for', async () => {
      const card = await client.getAgentCard();
      expect(card.capabilities?.pushNotifications).toBe(true);
      expect(client.transport.protocolName).toBe(binding);
    });

    it("creates, gets and lists a config; the task's CANCELED status reaches it; delete is idempotent and the config is then gone (spec §3.1.7–§3.1.10, §4.3.3)", async () => {
      const task = await sendTask('stays open');
      expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
      const token = `tok-${binding}`;

      // createTaskPushNotificationConfig
      const created = await client.createTaskPushNotificationConfig(
        pushConfig({ taskId: task.id, token, authentication: AUTH }),
      );
      expect(created).toEqual({
        tenant: '',
        id: expect.any(String),
        taskId: task.id,
        url: receiver.url(),
        token,
        authentication: AUTH,
      });
      expect(created.id).not.toBe('');

      // getTaskPushNotificationConfig: the same fields back, but the stored secrets, which no anonymous caller reads.
      const stored = { ...created, token: '', authentication: { scheme: AUTH.scheme, credentials: '' } };
      expect(await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: created.id })).toEqual(
        stored,
      );

      // listTaskPushNotificationConfig: just this one, one page.
      const listed = await client.listTaskPushNotificationConfig({
        tenant: '',
        taskId: task.id,
        pageSize: 0,
        pageToken: '',
      });
      expect(listed).toEqual({ configs: [stored], nextPageToken: '' });

      const canceled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      await eventually('the CANCELED status at the webhook', () =>
        receiver.received.some((r) => stateOf(decode(r)) === TaskState.TASK_STATE_CANCELED),
      );
      // Created after the task's earlier events: only the cancelation is delivered.
      expect(receiver.received).toHaveLength(1);
      const [delivery] = receiver.received;
      expect(delivery.method).toBe('POST');
      expect(delivery.path).toBe('/hook');
      expect(delivery.headers).toMatchObject({
        authorization: 'Bearer x',
        'x-a2a-notification-token': token,
        'content-type': 'application/a2a+json',
        'x-a2a-event-id': expect.stringMatching(new RegExp(`^${task.id}:\\d+$`)),
      });
      expect(JSON.parse(delivery.body)).toHaveProperty('statusUpdate');
      const event = decode(delivery);
      expect(event.payload?.$case).toBe('statusUpdate');
      expect(event.payload?.$case === 'statusUpdate' && event.payload.value).toMatchObject({
        taskId: task.id,
        contextId: task.contextId,
      });
      expectSdkSerialization(delivery);

      // deleteTaskPushNotificationConfig: resolves, then the config is gone, and a second delete still resolves.
      await expect(
        client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: created.id }),
      ).resolves.toBeUndefined();
      await expectError(
        client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: created.id }),
        TaskNotFoundError,
        'TaskNotFound',
      );
      await expect(
        client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: created.id }),
      ).resolves.toBeUndefined();
      expect(
        await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' }),
      ).toEqual({ configs: [], nextPageToken: '' });
    });

    it('delivers every event of a task sent with an inline config, in order, the task first (spec §3.2.2, §4.3.3)', async () => {
      const token = `inline-${binding}`;
      const task = await sendTask('stream 3', {
        taskPushNotificationConfig: pushConfig({ url: receiver.url('/inline'), token, authentication: AUTH }),
      });
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      await eventually('the COMPLETED status at the webhook', () =>
        receiver.received.some((r) => stateOf(decode(r)) === TaskState.TASK_STATE_COMPLETED),
      );

      const received = receiver.received;
      const events = received.map(decode);
      expectOrderedDeliveries(received, task.id);
      expect(events[0].payload?.$case).toBe('task');
      expect(events[0].payload?.value).toMatchObject({ id: task.id, contextId: task.contextId });
      // Nothing after the terminal status, and the chunks in the order the skill produced them.
      expect(stateOf(events.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(events.at(-1)!.payload?.$case).toBe('statusUpdate');
      const chunks = events.flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? [e.payload.value] : []));
      expect(chunks.map((c) => [texts(c.artifact!.parts), c.append, c.lastChunk])).toEqual([
        [['chunk 1'], false, false],
        [['chunk 2'], true, false],
        [['chunk 3'], true, true],
      ]);
      // Between the task and the chunks, only the way to WORKING.
      const states = events.flatMap((e) =>
        e.payload?.$case === 'task' || e.payload?.$case === 'statusUpdate' ? [e.payload.value.status?.state] : [],
      );
      expect(states).toContain(TaskState.TASK_STATE_WORKING);
      expect(
        states.slice(0, -1).every((s) => s === TaskState.TASK_STATE_SUBMITTED || s === TaskState.TASK_STATE_WORKING),
      ).toBe(true);
      for (const event of events.slice(1))
        expect(event.payload?.value).toMatchObject({ taskId: task.id, contextId: task.contextId });
      for (const delivery of received) {
        expect(delivery.path).toBe('/inline');
        expect(delivery.headers).toMatchObject({
          authorization: 'Bearer x',
          'x-a2a-notification-token': token,
          'content-type': 'application/a2a+json',
        });
        expectSdkSerialization(delivery);
      }
      // The inline config is the task's now, as the client sees it: without its secrets (an anonymous caller).
      const listed = await client.listTaskPushNotificationConfig({
        tenant: '',
        taskId: task.id,
        pageSize: 0,
        pageToken: '',
      });
      expect(listed.configs).toEqual([
        {
          tenant: '',
          id: expect.any(String),
          taskId: task.id,
          url: receiver.url('/inline'),
          token: '',
          authentication: { scheme: AUTH.scheme, credentials: '' },
        },
      ]);
    });

    it("pushes what the SDK's own stream shows of a streamed task with an inline config (spec §3.2.2, §4.3.3)", async () => {
      const streamed: StreamResponse[] = [];
      const request = {
        tenant: '',
        message: userMessage('stream 3'),
        metadata: undefined,
        configuration: configuration({ taskPushNotificationConfig: pushConfig({ url: receiver.url('/stream') }) }),
      };
      for await (const event of client.sendMessageStream(request)) streamed.push(event);
      expect(streamed[0].payload?.$case).toBe('task');
      const task = streamed[0].payload!.value as Task;
      expect(stateOf(streamed.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
      await eventually('the COMPLETED status at the webhook', () =>
        receiver.received.some((r) => stateOf(decode(r)) === TaskState.TASK_STATE_COMPLETED),
      );

      const pushed = receiver.received.map(decode);
      expectOrderedDeliveries(receiver.received, task.id);
      expect(pushed[0].payload?.$case).toBe('task');
      // The stream starts with a snapshot of the task where it attached; every event after it was pushed too, last.
      const after = streamed.slice(1);
      expect(pushed.slice(-after.length)).toEqual(after);
      expect(
        receiver.received.every(
          (r) => r.headers.authorization === undefined && r.headers['x-a2a-notification-token'] === undefined,
        ),
      ).toBe(true);
    });

    it("refuses a config for a private address: the SDK's INVALID_PARAMS error, RequestMalformedError, and nothing stored (spec §13.2)", async () => {
      const task = await sendTask('stays open');
      await expectError(
        client.createTaskPushNotificationConfig(pushConfig({ taskId: task.id, url: 'https://10.0.0.1/' })),
        RequestMalformedError,
        'InvalidParams',
      );
      expect(
        await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' }),
      ).toEqual({ configs: [], nextPageToken: '' });
      // Inline, the same rule, before any task is created.
      await expectError(
        sendTask('echo x', { taskPushNotificationConfig: pushConfig({ url: 'https://10.0.0.1/' }) }),
        RequestMalformedError,
        'InvalidParams',
      );
      await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    });
  },
);

/** Resolves once `check` holds, polling; fails the test with `what` after `ms`. */
async function eventually(what: string, check: () => boolean, ms = DELIVERY_WAIT_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A delivery's body as an SDK-based receiver reads it: the SDK's v1.0 `StreamResponse` codec. */
function decode(request: ReceivedRequest): StreamResponse {
  return StreamResponse.fromJSON(JSON.parse(request.body));
}

/** The body is the one the SDK's own sender would POST for the same event (its `V1PushNotificationSerializer`). */
function expectSdkSerialization(request: ReceivedRequest): void {
  const sdk = new V1PushNotificationSerializer().serialize(decode(request));
  expect(request.headers['content-type']).toBe(sdk.contentType);
  expect(JSON.parse(request.body)).toEqual(JSON.parse(sdk.body));
}

/** One POST per event, ids `<taskId>:<seq>` strictly increasing: the order the events were committed (spec §4.3.3). */
function expectOrderedDeliveries(received: ReceivedRequest[], taskId: string): void {
  const seqs = received.map((r) => {
    const id = String(r.headers['x-a2a-event-id']);
    expect(id).toMatch(new RegExp(`^${taskId}:\\d+$`));
    return Number(id.split(':').pop());
  });
  expect(seqs.every((seq, i) => i === 0 || seq > seqs[i - 1])).toBe(true);
}

function stateOf(event: StreamResponse): TaskState | undefined {
  return event.payload?.$case === 'task' || event.payload?.$case === 'statusUpdate'
    ? event.payload.value.status?.state
    : undefined;
}

function texts(parts: Part[]): string[] {
  return parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : []));
}
