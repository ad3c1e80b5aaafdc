import 'reflect-metadata';
import { Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Subject, filter, map, merge, type Observable } from 'rxjs';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  SKILL_ID_METADATA_KEY,
  artifact,
  complete,
  reject,
  reply,
  requireInput,
  working,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { InProcessEventBus, type TaskEventRecord } from '../../../libs/a2a/src/store.js';
import { createTestApplication } from '../../fixtures/test-app.js';

// ---- test skills ----

/** Promises the test resolves by key, created on first use by either side, so neither has to wait for the other. */
const gates = new Map<string, { promise: Promise<void>; open(): void }>();
function gate(key: string) {
  let entry = gates.get(key);
  if (!entry) {
    let open!: () => void;
    const promise = new Promise<void>((resolve) => (open = resolve));
    entry = { promise, open };
    gates.set(key, entry);
  }
  return entry;
}

@AgentSkill({ id: 'echo', name: 'Echo', description: 'Echoes text as an artifact', tags: ['echo'], default: true })
class EchoSkill extends A2aSkillHandler {
  handle(context: SkillContext): SkillEvent[] {
    return [working(), artifact(context.text, { name: 'echo' }), complete('Done.')];
  }
}

@AgentSkill({ id: 'greet', name: 'Greet', description: 'Answers with a message, no task', tags: ['greet'] })
class GreetSkill extends A2aSkillHandler {
  handle(context: SkillContext): SkillEvent[] {
    return [reply(`Hello, ${context.text}!`)];
  }
}

@AgentSkill({ id: 'ask', name: 'Ask', description: 'Asks a question first', tags: ['ask'] })
class AskSkill extends A2aSkillHandler {
  handle(context: SkillContext): SkillEvent[] {
    return context.task ? [complete(`Got ${context.text}`)] : [requireInput('Which city?')];
  }
}

@AgentSkill({ id: 'gated', name: 'Gated', description: 'Works until the test opens its gate', tags: ['gated'] })
class GatedSkill extends A2aSkillHandler {
  async *handle(context: SkillContext): AsyncIterable<SkillEvent> {
    yield working('Started');
    await Promise.race([
      gate(context.taskId).promise,
      new Promise((resolve) => context.signal.addEventListener('abort', resolve)),
    ]);
    if (context.signal.aborted) return;
    yield artifact('released', { artifactId: 'a-1' });
    yield complete('Finished');
  }
}

@AgentSkill({ id: 'silent', name: 'Silent', description: 'Ends without emitting anything', tags: ['silent'] })
class SilentSkill extends A2aSkillHandler {
  handle(): SkillEvent[] {
    return [];
  }
}

@AgentSkill({ id: 'refuse', name: 'Refuse', description: 'Rejects every task', tags: ['refuse'] })
class RefuseSkill extends A2aSkillHandler {
  handle(): SkillEvent[] {
    return [reject('No.')];
  }
}

/** The default bus, plus a way to make one task's watchers fail: the only way to break a stream after it started. */
class BreakableBus extends InProcessEventBus {
  private readonly failures = new Subject<{ taskId: string; error: Error }>();

  override watch(taskId: string): Observable<TaskEventRecord> {
    const failure$ = this.failures.pipe(
      filter((failure) => failure.taskId === taskId),
      map((failure): TaskEventRecord => {
        throw failure.error;
      }),
    );
    return merge(super.watch(taskId), failure$);
  }

  fail(taskId: string, error: Error): void {
    this.failures.next({ taskId, error });
  }
}

const bus = new BreakableBus();
const MAX_BODY_BYTES = 8 * 1024;

@Module({
  imports: [
    A2aModule.forRoot({
      card: { name: 'JSON-RPC test agent', description: 'Exercises the JSON-RPC binding' },
      limits: { maxBodyBytes: MAX_BODY_BYTES },
      eventBus: bus,
      sseHeartbeatMs: 20,
      security: { anonymousCallers: 'shared' },
    }),
  ],
  providers: [EchoSkill, GreetSkill, AskSkill, GatedSkill, SilentSkill, RefuseSkill],
})
class AppModule {}

// ---- helpers ----

let app: INestApplication;
let endpoint: string;

interface RpcAnswer {
  status: number;
  contentType: string | null;
  body: any;
}

async function post(body: string, headers: Record<string, string> = {}): Promise<RpcAnswer> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body,
  });
  const text = await res.text();
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    body: text ? JSON.parse(text) : undefined,
  };
}

function rpc(
  method: string,
  params?: unknown,
  options: { id?: unknown; headers?: Record<string, string> } = {},
): Promise<RpcAnswer> {
  const envelope: Record<string, unknown> = { jsonrpc: '2.0', id: 'id' in options ? options.id : 1, method };
  if (params !== undefined) envelope.params = params;
  return post(JSON.stringify(envelope), options.headers);
}

let messageCount = 0;
function userMessage(text: string, extra: Record<string, unknown> = {}, skill?: string) {
  return {
    messageId: `m-${++messageCount}`,
    role: 'ROLE_USER',
    parts: [{ text }],
    ...(skill ? { metadata: { [SKILL_ID_METADATA_KEY]: skill } } : {}),
    ...extra,
  };
}

function errorOf(answer: RpcAnswer): { code: number; message: string; data: any[] } {
  expect(answer.body.jsonrpc).toBe('2.0');
  expect(answer.body.result).toBeUndefined();
  return answer.body.error;
}

function reasonOf(answer: RpcAnswer): string | undefined {
  return errorOf(answer).data.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo')?.reason;
}

/** Opens an SSE call; resolves when the headers (sent with the first event) arrive. */
async function openStream(method: string, params: unknown, id: unknown = 'stream-1') {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  return res;
}

interface SseFrame {
  data?: any;
  comment?: string;
}

/** Reads SSE frames until the server closes the stream. `onFrame` may act on the stream (e.g. open a gate). */
async function readFrames(
  res: Response,
  onFrame: (frame: SseFrame, all: SseFrame[]) => void = () => undefined,
): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const raw = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const frame: SseFrame = {};
      for (const line of raw.split('\n')) {
        if (line.startsWith('data: ')) frame.data = JSON.parse(line.slice('data: '.length));
        else if (line.startsWith(':')) frame.comment = line.slice(1).trim();
      }
      frames.push(frame);
      onFrame(frame, frames);
    }
  }
  return frames;
}

const dataFrames = (frames: SseFrame[]) => frames.filter((f) => f.data !== undefined).map((f) => f.data);

async function completedTask(text = 'hello') {
  const answer = await rpc('SendMessage', { message: userMessage(text) });
  expect(answer.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  return answer.body.result.task;
}

async function workingGatedTask() {
  const answer = await rpc('SendMessage', {
    message: userMessage('wait', {}, 'gated'),
    configuration: { returnImmediately: true },
  });
  return answer.body.result.task;
}

beforeAll(async () => {
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  app = createTestApplication(moduleRef);
  await app.listen(0, '127.0.0.1');
  endpoint = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/a2a/jsonrpc`;
});
afterAll(async () => {
  for (const entry of gates.values()) entry.open();
  await app.close();
});

// ---- tests ----

/** Every JSON-RPC error carries an ErrorInfo (spec §9.5). */
const errorInfo = (reason: string) => ({
  '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
  reason,
  domain: 'a2a-protocol.org',
});

describe('JSON-RPC success responses (§5 JSON-RPC, §9)', () => {
  it('SendMessage answers {task} with the artifacts, blocking until terminal (spec §3.2.2), as application/json', async () => {
    const answer = await rpc('SendMessage', { message: userMessage('hi there') }, { id: 'req-1' });
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(answer.body).toEqual({ jsonrpc: '2.0', id: 'req-1', result: { task: expect.any(Object) } });
    const task = answer.body.result.task;
    expect(task).toMatchObject({
      id: expect.any(String),
      contextId: expect.any(String),
      status: { state: 'TASK_STATE_COMPLETED', message: { role: 'ROLE_AGENT', parts: [{ text: 'Done.' }] } },
      artifacts: [{ name: 'echo', parts: [{ text: 'hi there' }] }],
    });
    expect(task.history[0]).toMatchObject({ role: 'ROLE_USER', parts: [{ text: 'hi there' }] });
  });

  it('SendMessage answers {message} when the skill replies directly (spec §3.1.1)', async () => {
    const answer = await rpc('SendMessage', { message: userMessage('Ada', {}, 'greet') }, { id: 42 });
    expect(answer.body.id).toBe(42);
    expect(answer.body.result).toEqual({
      message: expect.objectContaining({
        role: 'ROLE_AGENT',
        parts: [{ text: 'Hello, Ada!' }],
        messageId: expect.any(String),
      }),
    });
    expect(answer.body.result.task).toBeUndefined();
  });

  it('SendMessage with returnImmediately answers at once with the working task (spec §3.2.2)', async () => {
    const task = await workingGatedTask();
    expect(task.status.state).toBe('TASK_STATE_WORKING');
    gate(task.id).open();
  });

  it('continues an INPUT_REQUIRED task with a follow-up message on the same taskId (spec §3.1.1)', async () => {
    const first = await rpc('SendMessage', { message: userMessage('trip', {}, 'ask') });
    const task = first.body.result.task;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const second = await rpc('SendMessage', { message: userMessage('Paris', { taskId: task.id }) });
    expect(second.body.result.task).toMatchObject({
      id: task.id,
      contextId: task.contextId,
      status: { state: 'TASK_STATE_COMPLETED' },
    });
  });

  it('accepts application/a2a+json request bodies too', async () => {
    const answer = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'SendMessage', params: { message: userMessage('typed') } }),
      {
        'Content-Type': 'application/a2a+json',
      },
    );
    expect(answer.status).toBe(200);
    expect(answer.body.result.task.artifacts[0].parts).toEqual([{ text: 'typed' }]);
  });

  it('GetTask answers the bare task; historyLength 0 leaves out the history (spec §3.2.4, §3.1.3)', async () => {
    const task = await completedTask();
    const answer = await rpc('GetTask', { id: task.id });
    expect(answer.body.result).toMatchObject({ id: task.id, status: { state: 'TASK_STATE_COMPLETED' } });
    expect(answer.body.result.task).toBeUndefined();
    const trimmed = await rpc('GetTask', { id: task.id, historyLength: 0 });
    expect(trimmed.body.result.history).toBeUndefined();
  });

  it('ListTasks always answers tasks, nextPageToken, pageSize and totalSize (spec §3.1.4)', async () => {
    const task = await completedTask('listed');
    const all = await rpc('ListTasks', { contextId: task.contextId });
    expect(all.body.result).toEqual({
      tasks: [expect.objectContaining({ id: task.id })],
      nextPageToken: '',
      pageSize: 50,
      totalSize: 1,
    });
    expect(all.body.result.tasks[0].artifacts).toBeUndefined();

    await completedTask();
    const page = await rpc('ListTasks', { pageSize: 1, includeArtifacts: true });
    expect(page.body.result).toEqual({
      tasks: [expect.any(Object)],
      nextPageToken: expect.any(String),
      pageSize: 1,
      totalSize: expect.any(Number),
    });
    expect(page.body.result.nextPageToken).not.toBe('');
    expect(page.body.result.tasks[0].artifacts).toEqual(expect.any(Array));

    const none = await rpc('ListTasks', { contextId: 'no-such-context' });
    expect(none.body.result).toEqual({ tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
  });

  it('CancelTask answers the canceled task (spec §3.1.5)', async () => {
    const task = await workingGatedTask();
    const answer = await rpc('CancelTask', { id: task.id });
    expect(answer.body.result).toMatchObject({ id: task.id, status: { state: 'TASK_STATE_CANCELED' } });
  });

  it('serves a request without id (a notification) like one with id null (documented decision)', async () => {
    const answer = await post(JSON.stringify({ jsonrpc: '2.0', method: 'ListTasks', params: {} }));
    expect(answer.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      result: expect.objectContaining({ tasks: expect.any(Array) }),
    });
  });

  it('accepts an absent params member where no field is required', async () => {
    const answer = await rpc('ListTasks');
    expect(answer.body.result).toEqual(expect.objectContaining({ nextPageToken: expect.any(String) }));
  });
});

describe('JSON-RPC streaming over SSE (spec §3.1.2, §3.1.6, §9.4.2)', () => {
  it('SendStreamingMessage sends the task first, then its events, echoing the id, and closes at the terminal state (spec §3.1.2)', async () => {
    const res = await openStream('SendStreamingMessage', { message: userMessage('streamed') }, 'abc');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = dataFrames(await readFrames(res));
    for (const frame of frames) {
      expect(frame).toEqual({ jsonrpc: '2.0', id: 'abc', result: expect.any(Object) });
    }
    const results = frames.map((f) => f.result);
    expect(results[0].task).toMatchObject({ id: expect.any(String), status: { state: expect.any(String) } });
    const taskId = results[0].task.id;
    expect(results.some((r) => r.artifactUpdate?.artifact.parts[0].text === 'streamed')).toBe(true);
    const last = results[results.length - 1];
    expect(last.statusUpdate).toMatchObject({ taskId, status: { state: 'TASK_STATE_COMPLETED' } });
  });

  it('SendStreamingMessage sends exactly one message frame for a direct reply (spec §3.1.2)', async () => {
    const res = await openStream('SendStreamingMessage', { message: userMessage('Bob', {}, 'greet') }, 9);
    const frames = dataFrames(await readFrames(res));
    expect(frames).toEqual([
      { jsonrpc: '2.0', id: 9, result: { message: expect.objectContaining({ parts: [{ text: 'Hello, Bob!' }] }) } },
    ]);
  });

  it('SubscribeToTask sends the current task first, then every event until terminal, with heartbeats meanwhile (spec §3.1.6)', async () => {
    const task = await workingGatedTask();
    const res = await openStream('SubscribeToTask', { id: task.id }, 'sub');
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // Open the gate only once a heartbeat proves the stream stays open while the task is idle.
    const frames = await readFrames(res, (frame) => {
      if (frame.comment === 'keep-alive') gate(task.id).open();
    });
    const results = dataFrames(frames).map((f) => {
      expect(f.id).toBe('sub');
      return f.result;
    });
    expect(results[0].task).toMatchObject({ id: task.id, status: { state: 'TASK_STATE_WORKING' } });
    expect(results.slice(1)).toEqual([
      {
        artifactUpdate: expect.objectContaining({
          taskId: task.id,
          artifact: expect.objectContaining({ artifactId: 'a-1' }),
        }),
      },
      {
        statusUpdate: expect.objectContaining({
          taskId: task.id,
          status: expect.objectContaining({ state: 'TASK_STATE_COMPLETED' }),
        }),
      },
    ]);
  });

  it('ends a stream that fails after its first event with one error frame carrying the envelope', async () => {
    const task = await workingGatedTask();
    const res = await openStream('SubscribeToTask', { id: task.id }, 'broken');
    const frames = dataFrames(
      await readFrames(res, (frame) => {
        if (frame.data?.result?.task) bus.fail(task.id, new Error('bus connection lost'));
      }),
    );
    expect(frames).toEqual([
      { jsonrpc: '2.0', id: 'broken', result: { task: expect.objectContaining({ id: task.id }) } },
      // An unexpected error: its details stay in the server log (spec §13.4).
      {
        jsonrpc: '2.0',
        id: 'broken',
        error: { code: -32603, message: 'Internal error', data: [errorInfo('INTERNAL')] },
      },
    ]);
    gate(task.id).open();
  });

  it('answers an error known before the first event as plain JSON, not SSE', async () => {
    const task = await completedTask();
    const res = await openStream('SubscribeToTask', { id: task.id }, 'late');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await res.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 'late', error: { code: -32004 } });

    const missing = await openStream('SubscribeToTask', { id: 'no-such-task' });
    expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await missing.json()).toMatchObject({ error: { code: -32001 } });

    const invalid = await openStream('SendStreamingMessage', { message: { role: 'ROLE_USER' } });
    expect(await invalid.json()).toMatchObject({ error: { code: -32602 } });
  });
});

describe('JSON-RPC errors (spec §5.4, §9.5)', () => {
  it('-32700 for a body that is not JSON', async () => {
    const answer = await post('{"jsonrpc": "2.0", "method": ', { 'Content-Type': 'application/a2a+json' });
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(answer.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Invalid JSON payload', data: [errorInfo('PARSE_ERROR')] },
    });
    expect(errorOf(await post('', { 'Content-Type': 'application/a2a+json' })).code).toBe(-32700);
    // Malformed application/json fails in Express's parser, before routing; it still gets a JSON-RPC envelope.
    expect(errorOf(await post('{"jsonrpc": ')).code).toBe(-32700);
  });

  it('-32600 for anything that is not a JSON-RPC 2.0 request object, echoing a usable id', async () => {
    const cases: Array<[unknown, unknown]> = [
      [{ id: 1, method: 'GetTask' }, 1],
      [{ jsonrpc: '1.0', id: 2, method: 'GetTask' }, 2],
      [{ jsonrpc: '2.0', id: 3, method: 7 }, 3],
      [{ jsonrpc: '2.0', id: 'x' }, 'x'],
      [{ jsonrpc: '2.0', id: { nested: true }, method: 'GetTask' }, null],
      [{ jsonrpc: '2.0', id: [1], method: 'GetTask' }, null],
      // Express's strict application/json parser refuses scalars before routing (-32700); a2a+json reaches the binding.
      ['just a string', null],
      [17, null],
    ];
    for (const [body, id] of cases) {
      const answer = await post(JSON.stringify(body), { 'Content-Type': 'application/a2a+json' });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        jsonrpc: '2.0',
        id,
        error: { code: -32600, message: expect.any(String), data: [errorInfo('INVALID_REQUEST')] },
      });
      if (typeof body === 'object') expect((await post(JSON.stringify(body))).body).toEqual(answer.body);
    }
  });

  it('-32600 for a batch: batches are not supported (documented decision)', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} },
      { jsonrpc: '2.0', id: 2, method: 'ListTasks', params: {} },
    ];
    const answer = await post(JSON.stringify(batch));
    expect(answer.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringMatching(/[Bb]atch/), data: [errorInfo('INVALID_REQUEST')] },
    });
    expect(errorOf(await post('[]')).code).toBe(-32600);
  });

  it('-32601 for an unknown method, including v0.3 slash names', async () => {
    for (const method of ['message/send', 'tasks/get', 'Frobnicate', 'constructor', '__proto__', 'sendMessage']) {
      const answer = await rpc(method, {}, { id: method });
      expect(answer.body).toEqual({
        jsonrpc: '2.0',
        id: method,
        error: { code: -32601, message: expect.stringContaining('SendMessage'), data: [errorInfo('METHOD_NOT_FOUND')] },
      });
    }
  });

  it('-32602 with a BadRequest listing every field violation (spec §5.7, §3.3.2)', async () => {
    const answer = await rpc('SendMessage', {
      message: { messageId: 'm', role: 'user', parts: [] },
      configuration: { historyLength: -2 },
    });
    const error = errorOf(answer);
    expect(error.code).toBe(-32602);
    const badRequest = error.data.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest');
    expect(badRequest.fieldViolations).toEqual([
      { field: 'message.role', description: '"user" is a v0.3 role name; A2A v1.0 uses ROLE_USER' },
      { field: 'message.parts', description: 'At least one element is required' },
      { field: 'configuration.historyLength', description: 'Must be an integer from 0 to 2147483647' },
    ]);
  });

  it('-32602 for params that are not an object, and for bad params of every method', async () => {
    expect(errorOf(await rpc('GetTask', ['t-1'])).data[1].fieldViolations).toEqual([
      { field: 'params', description: expect.any(String) },
    ]);
    expect(errorOf(await rpc('GetTask', 'x')).code).toBe(-32602);
    const bad: Array<[string, unknown, string]> = [
      ['SendMessage', {}, 'message'],
      [
        'SendStreamingMessage',
        { message: userMessage('x', { parts: [{ kind: 'text', text: 'x' }] }) },
        'message.parts[0].kind',
      ],
      ['GetTask', { id: 't', historyLength: -1 }, 'historyLength'],
      ['ListTasks', { pageSize: 150 }, 'pageSize'],
      ['ListTasks', { status: 'completed' }, 'status'],
      ['CancelTask', {}, 'id'],
      ['SubscribeToTask', { id: '' }, 'id'],
      ['CreateTaskPushNotificationConfig', { taskId: 't' }, 'url'],
      ['GetTaskPushNotificationConfig', { taskId: 't' }, 'id'],
      ['ListTaskPushNotificationConfigs', {}, 'taskId'],
      ['DeleteTaskPushNotificationConfig', { id: 'c' }, 'taskId'],
      ['GetExtendedAgentCard', { tenant: 3 }, 'tenant'],
    ];
    for (const [method, params, field] of bad) {
      const error = errorOf(await rpc(method, params));
      expect({ method, code: error.code }).toEqual({ method, code: -32602 });
      expect(error.data[1].fieldViolations.map((v: { field: string }) => v.field)).toContain(field);
    }
  });

  it('-32001 TaskNotFound for an unknown task id, with ErrorInfo (spec §3.1.3, §3.4.2)', async () => {
    const answer = await rpc('GetTask', { id: 'no-such-task' });
    expect(answer.body.error).toEqual({
      code: -32001,
      message: expect.any(String),
      data: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'TASK_NOT_FOUND',
          domain: 'a2a-protocol.org',
          metadata: { taskId: 'no-such-task' },
        },
      ],
    });
    expect(errorOf(await rpc('CancelTask', { id: 'no-such-task' })).code).toBe(-32001);
    expect(errorOf(await rpc('SendMessage', { message: userMessage('x', { taskId: 'no-such-task' }) })).code).toBe(
      -32001,
    );
  });

  it('-32002 TaskNotCancelable for a task in a terminal state other than CANCELED (spec §3.1.5, §3.3.1)', async () => {
    const task = await completedTask();
    const answer = await rpc('CancelTask', { id: task.id });
    expect(errorOf(answer).code).toBe(-32002);
    expect(reasonOf(answer)).toBe('TASK_NOT_CANCELABLE');
  });

  it('-32003 PushNotificationNotSupported for the four push-config methods (spec §3.3.4)', async () => {
    const task = await completedTask();
    const calls: Array<[string, unknown]> = [
      ['CreateTaskPushNotificationConfig', { taskId: task.id, url: 'https://hooks.example.com/a2a' }],
      ['GetTaskPushNotificationConfig', { taskId: task.id, id: 'c-1' }],
      ['ListTaskPushNotificationConfigs', { taskId: task.id }],
      ['DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'c-1' }],
    ];
    for (const [method, params] of calls) {
      const answer = await rpc(method, params);
      expect({ method, code: errorOf(answer).code, reason: reasonOf(answer) }).toEqual({
        method,
        code: -32003,
        reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
      });
    }
  });

  it('-32003 for SendMessage with an inline push config, instead of dropping it silently (spec §3.2.2, §3.3.4)', async () => {
    const answer = await rpc('SendMessage', {
      message: { messageId: 'm-inline-push', role: 'ROLE_USER', parts: [{ text: 'hello' }] },
      configuration: { taskPushNotificationConfig: { url: 'https://hooks.example.com/a2a' } },
    });
    expect({ code: errorOf(answer).code, reason: reasonOf(answer) }).toEqual({
      code: -32003,
      reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
    });
  });

  it('-32004 UnsupportedOperation: GetExtendedAgentCard, a message to a terminal task, SubscribeToTask on one (spec §3.3.4, §3.1.1, §3.1.6)', async () => {
    const card = await rpc('GetExtendedAgentCard');
    expect(errorOf(card).code).toBe(-32004);
    expect(reasonOf(card)).toBe('UNSUPPORTED_OPERATION');

    const task = await completedTask();
    expect(errorOf(await rpc('SendMessage', { message: userMessage('more', { taskId: task.id }) })).code).toBe(-32004);

    const rejected = await rpc('SendMessage', { message: userMessage('please', {}, 'refuse') });
    expect(rejected.body.result.task.status.state).toBe('TASK_STATE_REJECTED');
    expect(errorOf(await rpc('SubscribeToTask', { id: rejected.body.result.task.id })).code).toBe(-32004);
  });

  it('-32005 ContentTypeNotSupported when no accepted output mode fits the skill (spec §3.1.1)', async () => {
    const answer = await rpc('SendMessage', {
      message: userMessage('x'),
      configuration: { acceptedOutputModes: ['image/png'] },
    });
    expect(errorOf(answer).code).toBe(-32005);
    expect(reasonOf(answer)).toBe('CONTENT_TYPE_NOT_SUPPORTED');
    const ok = await rpc('SendMessage', {
      message: userMessage('x'),
      configuration: { acceptedOutputModes: ['image/png', 'text/*'] },
    });
    expect(ok.body.result.task).toBeDefined();
  });

  it('-32006 InvalidAgentResponse when a skill ends without emitting anything', async () => {
    const answer = await rpc('SendMessage', { message: userMessage('x', {}, 'silent') });
    expect(errorOf(answer).code).toBe(-32006);
    expect(reasonOf(answer)).toBe('INVALID_AGENT_RESPONSE');
  });

  it('-32009 VersionNotSupported for A2A-Version 0.3 or 2.0; 1.0 and 1.0.x are served (spec §3.6, §3.6.2)', async () => {
    for (const version of ['0.3', '2.0']) {
      const answer = await rpc('ListTasks', {}, { headers: { 'A2A-Version': version } });
      expect(answer.status).toBe(200);
      expect(errorOf(answer).code).toBe(-32009);
      expect(reasonOf(answer)).toBe('VERSION_NOT_SUPPORTED');
    }
    for (const version of ['1.0', '1.0.2']) {
      expect((await rpc('ListTasks', {}, { headers: { 'A2A-Version': version } })).body.result).toBeDefined();
    }
  });

  it('HTTP 413 with a JSON-RPC envelope for a body over limits.maxBodyBytes', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: userMessage('x'.repeat(MAX_BODY_BYTES)) },
    });
    const answer = await post(big, { 'Content-Type': 'application/a2a+json' });
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, data: [expect.objectContaining({ reason: 'PAYLOAD_TOO_LARGE' })] },
    });
  });

  it('keeps serving after bad input', async () => {
    await post('{{{', { 'Content-Type': 'application/a2a+json' });
    await post(JSON.stringify([1, 2, 3]));
    await rpc('Nope', {});
    await rpc('SendMessage', { message: 42 });
    const task = await completedTask('still alive');
    expect(task.artifacts[0].parts).toEqual([{ text: 'still alive' }]);
  });
});
