import * as grpc from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import { HTTP_ADAPTERS, startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { GrpcJsonClient, reasonOf, type Json } from '../../fixtures/grpc-json.client.js';

/**
 * Functional equivalence of the three bindings: every scenario runs over JSON-RPC, HTTP+JSON and gRPC against the same
 * conformance agent, and what each binding returns, as ProtoJSON, must be the same once ids, timestamps and the
 * default values gRPC cannot carry (`""`, `[]`) are normalized. The gRPC side is decoded by @bufbuild/protobuf, not by
 * the library.
 */

const SUBSCRIBE_HOLD_MS = 300;

/** What each scenario needs of a binding, in ProtoJSON. Errors reject with `{ reason }` (ErrorInfo.reason). */
interface BindingClient {
  readonly name: string;
  sendMessage(request: Json): Promise<Json>;
  sendStreamingMessage(request: Json): Promise<Json[]>;
  getTask(request: { id: string; historyLength?: number }): Promise<Json>;
  listTasks(request: { contextId: string; includeArtifacts?: boolean; pageSize?: number }): Promise<Json>;
  cancelTask(request: { id: string }): Promise<Json>;
  subscribeToTask(request: { id: string }): Promise<Json[]>;
}

class ProtocolError extends Error {
  constructor(readonly reason: string | undefined) {
    super(`protocol error ${reason}`);
  }
}

const HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

class JsonRpcBinding implements BindingClient {
  readonly name = 'JSONRPC';
  private id = 0;
  constructor(private readonly url: string) {}

  sendMessage = (params: Json) => this.call('SendMessage', params);
  sendStreamingMessage = (params: Json) => this.stream('SendStreamingMessage', params);
  getTask = (params: Json) => this.call('GetTask', params);
  listTasks = (params: Json) => this.call('ListTasks', params);
  cancelTask = (params: Json) => this.call('CancelTask', params);
  subscribeToTask = (params: Json) => this.stream('SubscribeToTask', params);

  private async call(method: string, params: Json): Promise<Json> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }),
    });
    return unwrap((await response.json()) as Json);
  }

  private async stream(method: string, params: Json): Promise<Json[]> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }),
    });
    if (!response.headers.get('content-type')?.startsWith('text/event-stream'))
      return [unwrap((await response.json()) as Json)];
    return sseData(await response.text()).map(unwrap);
  }
}

function unwrap(envelope: Json): Json {
  if (envelope.error) throw new ProtocolError(errorInfoReason((envelope.error as Json).data));
  return envelope.result as Json;
}

class RestBinding implements BindingClient {
  readonly name = 'HTTP+JSON';
  constructor(private readonly url: string) {}

  sendMessage = (request: Json) => this.call('POST', '/message:send', request);
  sendStreamingMessage = (request: Json) => this.stream('/message:stream', request);
  getTask = ({ id, historyLength }: { id: string; historyLength?: number }) =>
    this.call('GET', `/tasks/${id}${historyLength === undefined ? '' : `?historyLength=${historyLength}`}`);
  listTasks = (query: Record<string, string | number | boolean>) =>
    this.call(
      'GET',
      `/tasks?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`,
    );
  cancelTask = ({ id }: { id: string }) => this.call('POST', `/tasks/${id}:cancel`, {});
  subscribeToTask = ({ id }: { id: string }) => this.stream(`/tasks/${id}:subscribe`, {});

  private async call(method: string, path: string, body?: Json): Promise<Json> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: HEADERS,
      body: body && JSON.stringify(body),
    });
    const json = (await response.json()) as Json;
    if (!response.ok) throw new ProtocolError(errorInfoReason((json.error as Json).details));
    return json;
  }

  private async stream(path: string, body: Json): Promise<Json[]> {
    const response = await fetch(`${this.url}${path}`, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify(body),
    });
    if (!response.ok)
      throw new ProtocolError(errorInfoReason((((await response.json()) as Json).error as Json).details));
    return sseData(await response.text());
  }
}

class GrpcBinding implements BindingClient {
  readonly name = 'GRPC';
  constructor(private readonly client: GrpcJsonClient) {}

  sendMessage = (request: Json) => this.guard(this.client.unary('SendMessage', request));
  sendStreamingMessage = (request: Json) => this.guard(this.client.collect('SendStreamingMessage', request));
  getTask = (request: Json) => this.guard(this.client.unary('GetTask', request));
  listTasks = (request: Json) => this.guard(this.client.unary('ListTasks', request));
  cancelTask = (request: Json) => this.guard(this.client.unary('CancelTask', request));
  subscribeToTask = (request: Json) => this.guard(this.client.collect('SubscribeToTask', request));

  private guard<T>(call: Promise<T>): Promise<T> {
    return call.catch((error: grpc.ServiceError) => {
      throw new ProtocolError(reasonOf(error));
    });
  }
}

function sseData(body: string): Json[] {
  return body
    .split(/\r?\n\r?\n/)
    .map((event) =>
      event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .join('\n'),
    )
    .filter(Boolean)
    .map((data) => JSON.parse(data) as Json);
}

function errorInfoReason(details: unknown): string | undefined {
  return (details as Json[] | undefined)?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo')
    ?.reason as string | undefined;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * Ids (UUIDs, also inside strings) become `<id1>`, `<id2>`… in order of first appearance with keys visited in sorted
 * order (so "the same id" stays visible whatever order a binding writes fields in), timestamps `<ts>`, page tokens
 * `<token>`; `""` and `[]` are dropped, since gRPC does not carry default values (`nextPageToken: ""`, spec §3.1.4).
 */
function normalize(value: unknown, ids = new Map<string, string>()): unknown {
  if (Array.isArray(value)) return value.map((v) => normalize(v, ids));
  if (typeof value === 'string') {
    if (TIMESTAMP.test(value)) return '<ts>';
    return value.replace(UUID, (id) => ids.get(id) ?? (ids.set(id, `<id${ids.size + 1}>`), ids.get(id)!));
  }
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== '' && !(Array.isArray(v) && v.length === 0))
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [k, k === 'nextPageToken' ? '<token>' : normalize(v, ids)]),
  );
}

const userMessage = (text: string, extra: Json = {}): Json => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});
const taskOf = (response: Json) => response.task as Json;

/** Each scenario drives one binding and returns what it observed; the observations must match across bindings. */
const scenarios: [string, (b: BindingClient) => Promise<unknown>][] = [
  [
    'SendMessage: a completed task with its artifact',
    (b) => b.sendMessage({ message: userMessage('echo same everywhere') }),
  ],
  ['SendMessage: a direct Message', (b) => b.sendMessage({ message: userMessage('message hello') })],
  ['SendMessage: data, raw and url parts', (b) => b.sendMessage({ message: userMessage('data') })],
  [
    'SendMessage: historyLength 0 drops the history',
    (b) => b.sendMessage({ message: userMessage('echo short'), configuration: { historyLength: 0 } }),
  ],
  [
    'SendMessage: FAILED and REJECTED',
    async (b) => [
      await b.sendMessage({ message: userMessage('fail') }),
      await b.sendMessage({ message: userMessage('reject') }),
    ],
  ],
  [
    'SendStreamingMessage: task, chunks, COMPLETED',
    (b) => b.sendStreamingMessage({ message: userMessage('stream 3') }),
  ],
  ['SendStreamingMessage: one message', (b) => b.sendStreamingMessage({ message: userMessage('message streamed') })],
  [
    'multi-turn: INPUT_REQUIRED, then the answer completes the task',
    async (b) => {
      const asked = taskOf(await b.sendMessage({ message: userMessage('ask') }));
      const answered = taskOf(
        await b.sendMessage({ message: userMessage('Paris', { taskId: asked.id, contextId: asked.contextId }) }),
      );
      return [asked, answered, await b.getTask({ id: asked.id as string, historyLength: 1 })];
    },
  ],
  [
    'AUTH_REQUIRED, then a follow-up',
    async (b) => {
      const waiting = taskOf(await b.sendMessage({ message: userMessage('auth') }));
      return [waiting, taskOf(await b.sendMessage({ message: userMessage('creds', { taskId: waiting.id }) }))];
    },
  ],
  [
    'CancelTask of a running task, twice',
    async (b) => {
      const running = taskOf(
        await b.sendMessage({ message: userMessage('slow 10000'), configuration: { returnImmediately: true } }),
      );
      return [await b.cancelTask({ id: running.id as string }), await b.cancelTask({ id: running.id as string })];
    },
  ],
  [
    'SubscribeToTask: the task, then COMPLETED',
    async (b) => {
      const started = taskOf(
        await b.sendMessage({
          message: userMessage('hold', { messageId: `test-subscribe-message-id-${randomUUID()}` }),
          configuration: { returnImmediately: true },
        }),
      );
      return b.subscribeToTask({ id: started.id as string });
    },
  ],
  [
    'ListTasks: two pages of one context, artifacts on request',
    async (b) => {
      const contextId = randomUUID();
      for (const word of ['one', 'two', 'three'])
        await b.sendMessage({ message: userMessage(`echo ${word}`, { contextId }) });
      const first = await b.listTasks({ contextId, pageSize: 2 });
      const all = await b.listTasks({ contextId, includeArtifacts: true });
      // Same-millisecond timestamps may order differently from run to run; compare the set.
      const sorted = (page: Json) => ({
        ...page,
        tasks: ((page.tasks as Json[]) ?? [])
          .map((t) => normalize(t))
          .sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
      });
      return [sorted(first), sorted(all)];
    },
  ],
  [
    'errors: the same ErrorInfo reason on every binding',
    async (b) => {
      const reason = (call: Promise<unknown>) =>
        call.then(
          () => 'no error',
          (e: unknown) => (e instanceof ProtocolError ? e.reason : String(e)),
        );
      const done = taskOf(await b.sendMessage({ message: userMessage('echo done') }));
      return {
        unknownTask: await reason(b.getTask({ id: randomUUID() })),
        notCancelable: await reason(b.cancelTask({ id: done.id as string })),
        terminalSubscribe: await reason(b.subscribeToTask({ id: done.id as string })),
        terminalMessage: await reason(b.sendMessage({ message: userMessage('more', { taskId: done.id }) })),
        missingMessage: await reason(b.sendMessage({})),
        contentType: await reason(
          b.sendMessage({ message: userMessage('echo x'), configuration: { acceptedOutputModes: ['image/png'] } }),
        ),
      };
    },
  ],
];

describe.each(HTTP_ADAPTERS)('on %s', (adapter) => {
  let agent: RunningAgent;
  let grpcClient: GrpcJsonClient;
  let bindings: BindingClient[];

  beforeAll(async () => {
    agent = await startConformanceAgent({ subscribeHoldMs: SUBSCRIBE_HOLD_MS, withGrpc: true, adapter });
    grpcClient = new GrpcJsonClient(agent.grpcAddress!);
    bindings = [new JsonRpcBinding(`${agent.url}/`), new RestBinding(agent.url), new GrpcBinding(grpcClient)];
  });
  afterAll(async () => {
    grpcClient?.close();
    await agent?.close();
  });

  describe('the three bindings are equivalent', () => {
    it.each(scenarios)('%s', async (_name, scenario) => {
      const [jsonRpc, rest, grpcResult] = await Promise.all(
        bindings.map(async (b) => ({ binding: b.name, observed: normalize(await scenario(b)) })),
      );
      expect(rest.observed).toEqual(jsonRpc.observed);
      expect(grpcResult.observed).toEqual(jsonRpc.observed);
    });

    it('the error scenario is not vacuous', async () => {
      const observed = (await scenarios.at(-1)![1](bindings[2])) as Json;
      expect(observed).toEqual({
        unknownTask: 'TASK_NOT_FOUND',
        notCancelable: 'TASK_NOT_CANCELABLE',
        terminalSubscribe: 'UNSUPPORTED_OPERATION',
        terminalMessage: 'UNSUPPORTED_OPERATION',
        missingMessage: 'INVALID_PARAMS',
        contentType: 'CONTENT_TYPE_NOT_SUPPORTED',
      });
    });
  });

  it('keeps "__proto__", "constructor" and "prototype" keys of metadata and data as members, read back by GetTask on every binding', async () => {
    const metadata = JSON.parse('{"__proto__":{"x":1},"constructor":{"y":2},"prototype":3,"a":4}') as Json;
    const data = JSON.parse('{"__proto__":{"z":1},"b":[{"__proto__":null}]}') as Json;
    for (const b of bindings) {
      const sent = userMessage('echo keys', { metadata });
      sent.parts = [...(sent.parts as Json[]), { data }];
      const task = taskOf(await b.sendMessage({ message: sent }));
      const [read] = (await b.getTask({ id: task.id as string })).history as Json[];
      expect([b.name, JSON.stringify(read.metadata), JSON.stringify((read.parts as Json[])[1].data)]).toEqual([
        b.name,
        JSON.stringify(metadata),
        JSON.stringify(data),
      ]);
    }
  });
});
