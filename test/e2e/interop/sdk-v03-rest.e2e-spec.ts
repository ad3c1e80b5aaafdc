import { Role, TaskState, type Message, type StreamResponse, type TaskPushNotificationConfig } from '@a2a-js/sdk';
import { LegacyRestTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { randomUUID } from 'node:crypto';
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  working,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { DirectHttpDispatcher } from '../../../libs/a2a/src/bindings/http/direct/direct-http.dispatcher.js';
import { WebhookReceiver } from '../../fixtures/webhook-receiver.js';
import { asTask, userMessage } from './sdk-messages.js';
import { HTTP_ADAPTERS, startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';

/**
 * @a2a-js/sdk 1.3's v0.3 HTTP+JSON client (`LegacyRestTransport`: `/v1/message:send`, `/v1/tasks/{id}`, …, bodies in
 * v0.3's ProtoJSON) against the conformance agent (HTTP+JSON at the app root) with option `compat.v03`, on Express
 * (the direct dispatcher) and Fastify; and, without the option, those paths answered as before.
 */

const FAST_RETRIES = {
  baseDelayMs: 20,
  maxDelayMs: 100,
  maxAttempts: 2,
  pollIntervalMs: 50,
  connectTimeoutMs: 500,
  headersTimeoutMs: 500,
  totalTimeoutMs: 1000,
};

async function collect(events: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const all: StreamResponse[] = [];
  for await (const event of events) all.push(event);
  return all;
}

function texts(parts: Message['parts']): string[] {
  return parts.flatMap((part) => (part.content?.$case === 'text' ? [part.content.value] : []));
}

async function rejection(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe.each(HTTP_ADAPTERS)('on %s, with compat.v03: the v0.3 REST client', (adapter) => {
  let agent: RunningAgent;
  let client: LegacyRestTransport;
  let receiver: WebhookReceiver;
  const paths: string[] = [];

  beforeAll(async () => {
    agent = await startConformanceAgent({
      adapter,
      compat: { v03: true },
      push: { allow: '127.0.0.1/32', ...FAST_RETRIES },
    });
    receiver = await WebhookReceiver.start();
    const fetchImpl: typeof fetch = (input, init) => {
      paths.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
      return fetch(input, init);
    };
    client = new LegacyRestTransport({ endpoint: agent.url, fetchImpl });
  });
  afterAll(async () => {
    await receiver?.stop();
    await agent?.close();
  });

  const send = (text: string, returnImmediately = false, extra?: Partial<Message>) =>
    client.sendMessage({
      tenant: '',
      message: userMessage(text, extra),
      metadata: undefined,
      configuration: {
        acceptedOutputModes: [],
        taskPushNotificationConfig: undefined,
        returnImmediately,
        historyLength: undefined,
      },
    });

  it('message:send: a task, blocking until it completes, with its artifacts and history', async () => {
    const message = userMessage('echo hello world');
    const task = asTask(
      await client.sendMessage({ tenant: '', message, metadata: undefined, configuration: undefined }),
    );
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts.map((artifact) => texts(artifact.parts))).toEqual([['hello world']]);
    expect(task.history.find((m) => m.messageId === message.messageId)?.role).toBe(Role.ROLE_USER);
  });

  it('message:send: a direct message', async () => {
    const reply = (await send('message hi there')) as Message;
    expect(reply.role).toBe(Role.ROLE_AGENT);
    expect(texts(reply.parts)).toEqual(['hi there']);
  });

  it('data and file artifacts come back as the SDK wrote them', async () => {
    const task = asTask(await send('data'));
    const parts = task.artifacts[0].parts;
    expect(parts.map((part) => part.content?.$case)).toEqual(['data', 'raw', 'url']);
    expect(parts[0].content?.value).toEqual({ ok: true, n: 42 });
    expect(Buffer.from(parts[1].content?.value as Uint8Array).toString()).toBe('hello');
    expect(parts[2]).toMatchObject({ content: { value: 'https://example.com/a.pdf' }, mediaType: 'application/pdf' });
  });

  it('message:stream: the task, its chunks, the final status', async () => {
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
    const chunks = events.flatMap((event) => (event.payload?.$case === 'artifactUpdate' ? [event.payload.value] : []));
    // The SDK's v0.3 REST client drops `append` (its FromProto.taskArtifactUpdateEvent); the wire has it (below).
    expect(chunks.map((chunk) => [texts(chunk.artifact!.parts)[0], chunk.lastChunk])).toEqual([
      ['chunk 1', false],
      ['chunk 2', false],
      ['chunk 3', true],
    ]);
    const last = events.at(-1)!.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('message:stream on the wire: bare v0.3 ProtoJSON StreamResponses, `final` on the last status', async () => {
    const response = await fetch(`${agent.url}/v1/message:stream`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify({
        message: { messageId: randomUUID(), role: 'ROLE_USER', content: [{ text: 'stream 2' }] },
      }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as Record<string, Record<string, unknown>>);
    expect(frames.map((frame) => Object.keys(frame)[0])).toEqual([
      'task',
      'artifactUpdate',
      'artifactUpdate',
      'statusUpdate',
    ]);
    expect(frames[0].task).toMatchObject({
      status: { state: expect.stringMatching(/^TASK_STATE_(SUBMITTED|WORKING)$/) },
      history: [{ role: 'ROLE_USER', content: [{ text: 'stream 2' }] }],
    });
    expect(frames[2].artifactUpdate).toMatchObject({
      append: true,
      lastChunk: true,
      artifact: { parts: [{ text: 'chunk 2' }] },
    });
    expect(frames[3].statusUpdate).toMatchObject({ final: true, status: { state: 'TASK_STATE_COMPLETED' } });
  });

  it('tasks/{id}: the task, with historyLength', async () => {
    const sent = asTask(await send('echo get me'));
    const task = await client.getTask({ tenant: '', id: sent.id, historyLength: 0 });
    expect(task.id).toBe(sent.id);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.history).toEqual([]);
    expect(
      (await client.getTask({ tenant: '', id: sent.id, historyLength: undefined })).history.length,
    ).toBeGreaterThan(0);
  });

  it('tasks/{id}:cancel cancels a running task; tasks/{id}:subscribe follows one to its end', async () => {
    const slow = asTask(await send('slow 5000', true));
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(slow.status?.state);
    expect((await client.cancelTask({ tenant: '', id: slow.id, metadata: undefined })).status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );

    const running = asTask(await send('x', true, { messageId: `test-subscribe-message-id-${randomUUID()}` }));
    const events = await collect(client.resubscribeTask({ tenant: '', id: running.id }));
    expect(events[0].payload?.$case).toBe('task');
    const last = events.at(-1)!.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('errors: TaskNotFound (404, -32001), TaskNotCancelable (-32002)', async () => {
    expect(await rejection(client.getTask({ tenant: '', id: randomUUID(), historyLength: undefined }))).toBeInstanceOf(
      TaskNotFoundError,
    );
    expect(await rejection(client.cancelTask({ tenant: '', id: randomUUID(), metadata: undefined }))).toBeInstanceOf(
      TaskNotFoundError,
    );
    const done = asTask(await send('echo done'));
    expect(await rejection(client.cancelTask({ tenant: '', id: done.id, metadata: undefined }))).toBeInstanceOf(
      TaskNotCancelableError,
    );
    const response = await fetch(`${agent.url}/v1/tasks/${randomUUID()}`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: -32001, message: expect.any(String) });
  });

  it('pushNotificationConfigs: set, get, list, delete', async () => {
    const task = asTask(await send('keep open', true));
    const config = (fields: Partial<TaskPushNotificationConfig>): TaskPushNotificationConfig => ({
      tenant: '',
      id: '',
      taskId: task.id,
      url: receiver.url(),
      token: '',
      authentication: undefined,
      ...fields,
    });
    const named = await client.createTaskPushNotificationConfig(
      config({ id: 'hook-1', token: 'tk', authentication: { scheme: 'Bearer', credentials: 'secret' } }),
    );
    expect(named).toMatchObject({
      taskId: task.id,
      id: 'hook-1',
      url: receiver.url(),
      token: 'tk',
      authentication: { scheme: 'Bearer', credentials: 'secret' },
    });
    const unnamed = await client.createTaskPushNotificationConfig(config({}));
    expect(unnamed.id).toBe(task.id);
    expect(await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' })).toMatchObject({
      taskId: task.id,
      id: 'hook-1',
      token: '',
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
      await rejection(client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: 'hook-1' })),
    ).toBeInstanceOf(TaskNotFoundError);
    expect(await rejection(client.createTaskPushNotificationConfig(config({ taskId: randomUUID() })))).toBeInstanceOf(
      TaskNotFoundError,
    );
    await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
  });

  it('went to the /v1/ paths, and v1.0 HTTP+JSON is served beside them as before', async () => {
    expect(paths).toEqual(expect.arrayContaining(['POST /v1/message:send', 'POST /v1/message:stream']));
    expect(paths.some((path) => /^POST \/v1\/tasks\/[^/]+:cancel$/.test(path))).toBe(true);
    expect(paths.some((path) => /^GET \/v1\/tasks\/[^/]+\/pushNotificationConfigs\/hook-1$/.test(path))).toBe(true);
    const response = await fetch(`${agent.url}/message:send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'echo v1' }] } }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ task: { status: { state: 'TASK_STATE_COMPLETED' } } });
  });

  it('a v0.3 path with A2A-Version 1.0: VersionNotSupported in v0.3 shape', async () => {
    const response = await fetch(`${agent.url}/v1/tasks/${randomUUID()}`, { headers: { 'A2A-Version': '1.0' } });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: expect.any(Number), message: expect.stringContaining('0.3') });
  });
});

describe.each(HTTP_ADAPTERS)('on %s, without compat: the /v1/ paths answer as before', (adapter) => {
  let agent: RunningAgent;
  beforeAll(async () => {
    agent = await startConformanceAgent({ adapter, push: false });
  });
  afterAll(() => agent?.close());

  it('POST /v1/message:send is tenant "v1" of v1.0 HTTP+JSON, refused with a google.rpc.Status 400', async () => {
    const response = await fetch(`${agent.url}/v1/message:send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ message: { messageId: randomUUID(), role: 'ROLE_USER', content: [{ text: 'echo hi' }] } }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 400, status: expect.any(String) } });
  });

  it('GET /v1/tasks/{id} is task lookup below tenant "v1": no v0.3 error body', async () => {
    const response = await fetch(`${agent.url}/v1/tasks/${randomUUID()}`);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toHaveProperty('error');
    expect(body).not.toHaveProperty('code');
  });
});

@AgentSkill({ id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['echo'], default: true })
class EchoSkill extends A2aSkillHandler {
  handle(context: SkillContext): SkillEvent[] {
    return [working(), artifact(context.text, { artifactId: 'a-1', name: 'echo' }), complete('Done.')];
  }
}

describe('the direct dispatcher (Express, plain app.listen, HTTP+JSON at /a2a/rest), with compat.v03', () => {
  let app: Awaited<ReturnType<typeof boot>>['app'];
  let base: string;

  async function boot() {
    @Module({
      imports: [
        A2aModule.forRoot({ card: { name: 'Direct', description: 'v0.3 REST, direct' }, compat: { v03: true } }),
      ],
      providers: [EchoSkill],
    })
    class AppModule {}
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const created = moduleRef.createNestApplication({ logger: false });
    await created.listen(0, '127.0.0.1');
    return { app: created, port: (created.getHttpServer().address() as { port: number }).port };
  }

  beforeAll(async () => {
    const booted = await boot();
    app = booted.app;
    base = `http://127.0.0.1:${booted.port}/a2a/rest`;
  });
  afterAll(() => app?.close());

  it("serves the v0.3 client below the mount, from node's request event", async () => {
    const client = new LegacyRestTransport({ endpoint: base });
    const task = asTask(
      await client.sendMessage({
        tenant: '',
        message: userMessage('hello direct'),
        metadata: undefined,
        configuration: undefined,
      }),
    );
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(texts(task.artifacts[0].parts)).toEqual(['hello direct']);
    expect((await client.getTask({ tenant: '', id: task.id, historyLength: undefined })).id).toBe(task.id);
    const events = await collect(
      client.sendMessageStream({
        tenant: '',
        message: userMessage('streamed'),
        metadata: undefined,
        configuration: undefined,
      }),
    );
    expect(events.at(-1)?.payload?.$case).toBe('statusUpdate');
    expect(await rejection(client.getTask({ tenant: '', id: randomUUID(), historyLength: undefined }))).toBeInstanceOf(
      TaskNotFoundError,
    );
    expect(app.get(DirectHttpDispatcher).active).toBe(true);
  });
});
