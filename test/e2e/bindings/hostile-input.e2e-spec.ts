import 'reflect-metadata';
import * as grpc from '@grpc/grpc-js';
import { Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { HTTP_ADAPTERS, startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import {
  A2aMessages,
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  type JsonValue,
  type SkillContext,
} from '../../../libs/a2a/src/index.js';
import { GrpcJsonClient, reasonOf, statusDetailsOf, type Json } from '../../fixtures/grpc-json.client.js';
import { startTestApp } from '../../fixtures/test-app.js';

/**
 * Hostile and unusual requests, as an outside client sends them, on every binding (spec §5.7): free-form values nested
 * past `limits.maxJsonDepth` are refused before anything walks them, whatever was accepted stays readable on JSON-RPC,
 * HTTP+JSON and gRPC alike, ProtoJSON's proto field names are accepted, integers are int32, and every answer under the
 * bindings' paths is in the protocol's error shape.
 */

const A2A_HEADERS = { 'A2A-Version': '1.0' };
const JSON_TYPES = ['application/json', 'application/a2a+json'];

/** `levels` nested arrays around `inner`, as text: JSON.stringify itself overflows on the deepest of these. */
const nestedArrays = (levels: number, inner = '1') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;
/** `levels` nested objects `{"a":…}` around 1, as text. */
const nestedObjects = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

function dataMessage(messageId: string, data: string): string {
  return `{"messageId":"${messageId}","role":"ROLE_USER","parts":[{"data":${data}}]}`;
}

/** The bodies of the robustness issue, each as the SendMessage request message's JSON. */
const HOSTILE_SENDS: Array<[name: string, request: string, field: string]> = [
  [
    'a data part 2,500 arrays deep',
    `{"message":${dataMessage('deep-2500', nestedArrays(2500, ''))}}`,
    'message.parts[0].data',
  ],
  [
    'message metadata 5,000 objects deep',
    `{"message":{"messageId":"deep-meta","role":"ROLE_USER","parts":[{"text":"echo hi"}],"metadata":${nestedObjects(5000)}}}`,
    'message.metadata',
  ],
  ['a data part 49 arrays deep', `{"message":${dataMessage('m49', nestedArrays(49))}}`, 'message.parts[0].data'],
  [
    'a data part 33 arrays deep (one past the default limit)',
    `{"message":${dataMessage('m33', nestedArrays(33))}}`,
    'message.parts[0].data',
  ],
  // 60 kB: under the app's 100 kB JSON body limit.
  [
    'request metadata 30,000 arrays deep',
    `{"message":${dataMessage('m-meta', '1')},"metadata":{"x":${nestedArrays(30_000)}}}`,
    'metadata',
  ],
];

/** A protobuf length-delimited field: tag, length, bytes. */
function lengthDelimited(field: number, bytes: Buffer): Buffer {
  const length: number[] = [];
  for (let n = bytes.length; ; n >>>= 7) {
    if (n < 0x80) {
      length.push(n);
      break;
    }
    length.push((n & 0x7f) | 0x80);
  }
  return Buffer.concat([Buffer.from([(field << 3) | 2, ...length]), bytes]);
}

/** A google.protobuf.Value of `levels` nested list values around the number 1. */
function nestedValueBytes(levels: number): Buffer {
  let value: Buffer = Buffer.from([0x11, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f]); // number_value = 1.0
  for (let i = 0; i < levels; i++) value = lengthDelimited(6, lengthDelimited(1, value)); // Value.list_value.values
  return value;
}

/** SendMessageRequest { message { message_id: "deep", role: ROLE_USER, parts { data } } }. */
function sendMessageRequestBytes(data: Buffer): Buffer {
  const message = Buffer.concat([
    lengthDelimited(1, Buffer.from('deep')),
    Buffer.from([0x20, 0x01]),
    lengthDelimited(5, lengthDelimited(4, data)),
  ]);
  return lengthDelimited(2, message);
}

interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

async function http(method: string, url: string, body?: string, contentType = 'application/json'): Promise<HttpAnswer> {
  const res = await fetch(url, {
    method,
    headers: { ...A2A_HEADERS, ...(body !== undefined ? { 'Content-Type': contentType } : {}) },
    body,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}

const rpc = (method: string, params: string) => `{"jsonrpc":"2.0","id":1,"method":"${method}","params":${params}}`;

function expectRestError(answer: HttpAnswer, code: number, status: string, reason: string): void {
  expect(answer.status).toBe(code);
  expect(answer.headers.get('content-type')).toMatch(/^application\/a2a\+json/);
  expect(answer.body).toEqual({ error: { code, status, message: expect.any(String), details: expect.any(Array) } });
  expect(answer.body.error.details).toContainEqual(expect.objectContaining({ reason, domain: 'a2a-protocol.org' }));
}

function expectJsonRpcError(
  answer: HttpAnswer,
  httpStatus: number,
  code: number,
  reason: string,
  id: number | null = 1,
): void {
  expect(answer.status).toBe(httpStatus);
  expect(answer.body).toEqual({
    jsonrpc: '2.0',
    id,
    error: { code, message: expect.any(String), data: expect.any(Array) },
  });
  expect(answer.body.error.data).toContainEqual(expect.objectContaining({ reason }));
}

function violatedFields(details: Array<Record<string, any>>): string[] {
  const badRequest = details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest');
  return (badRequest?.fieldViolations ?? []).map((v: { field: string }) => v.field);
}

function versionMetadata(): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set('a2a-version', '1.0');
  return metadata;
}

/** The error a gRPC call failed with; fails the test if it succeeded. */
async function grpcFailure(call: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await call;
  } catch (error) {
    return error as grpc.ServiceError;
  }
  throw new Error('expected the call to fail');
}

describe.each(HTTP_ADAPTERS)('on %s', (adapter) => {
  describe('hostile requests to the conformance agent, on every binding', () => {
    let agent: RunningAgent;
    let grpcClient: GrpcJsonClient;

    beforeAll(async () => {
      agent = await startConformanceAgent({ withGrpc: true, adapter });
      grpcClient = new GrpcJsonClient(agent.grpcAddress!);
    });
    afterAll(async () => {
      grpcClient.close();
      await agent.close();
    });

    /** The agent still completes a plain message on all three bindings. */
    async function expectStillServing(): Promise<void> {
      const send = `{"message":{"messageId":"${randomUUID()}","role":"ROLE_USER","parts":[{"text":"echo alive"}]}}`;
      expect((await http('POST', `${agent.url}/message:send`, send)).body.task.status.state).toBe(
        'TASK_STATE_COMPLETED',
      );
      expect((await http('POST', `${agent.url}/`, rpc('SendMessage', send))).body.result.task.status.state).toBe(
        'TASK_STATE_COMPLETED',
      );
      const viaGrpc = await grpcClient.unary('SendMessage', JSON.parse(send) as Json);
      expect((viaGrpc.task as Json).status).toMatchObject({ state: 'TASK_STATE_COMPLETED' });
    }

    describe.each(HOSTILE_SENDS)('%s', (_name, request, field) => {
      it.each(JSON_TYPES)(
        'HTTP+JSON as %s: 400 INVALID_ARGUMENT naming the field; the agent stays up',
        async (contentType) => {
          const answer = await http('POST', `${agent.url}/message:send`, request, contentType);
          expectRestError(answer, 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS');
          expect(violatedFields(answer.body.error.details)).toEqual([field]);
          await expectStillServing();
        },
      );

      it.each(JSON_TYPES)('JSON-RPC as %s: -32602 naming the field; the agent stays up', async (contentType) => {
        const answer = await http('POST', `${agent.url}/`, rpc('SendMessage', request), contentType);
        expectJsonRpcError(answer, 200, -32602, 'INVALID_PARAMS');
        expect(violatedFields(answer.body.error.data)).toEqual([field]);
        await expectStillServing();
      });
    });

    it('gRPC: a data part one level past the limit is INVALID_ARGUMENT naming the field', async () => {
      const error = await grpcFailure(
        grpcClient.unary('SendMessage', JSON.parse(`{"message":${dataMessage('g33', nestedArrays(33))}}`) as Json),
      );
      expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(reasonOf(error)).toBe('INVALID_PARAMS');
      expect(violatedFields((statusDetailsOf(error)?.details ?? []) as Json[])).toEqual(['message.parts[0].data']);
    });

    it('gRPC: a data part 49 levels deep is INVALID_ARGUMENT; the agent stays up', async () => {
      const error = await grpcFailure(
        grpcClient.unary('SendMessage', JSON.parse(`{"message":${dataMessage('g', nestedArrays(49))}}`) as Json),
      );
      expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
      await expectStillServing();
    });

    it('gRPC: a frame with a data part 2,500 levels deep is INVALID_ARGUMENT; the agent stays up', async () => {
      // Encoded by hand: protobuf encoders refuse to write more than 100 nested messages.
      const bytes = sendMessageRequestBytes(nestedValueBytes(2500));
      const error = await grpcFailure(
        new Promise((resolve, reject) =>
          grpcClient.client.makeUnaryRequest(
            '/lf.a2a.v1.A2AService/SendMessage',
            (raw: Buffer) => raw,
            (raw: Buffer) => raw,
            bytes,
            versionMetadata(),
            (error, answer) => (error ? reject(error) : resolve(answer)),
          ),
        ),
      );
      expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(reasonOf(error)).toBe('PARSE_ERROR');
      await expectStillServing();
    });

    it('gRPC: an error echoing a 20,000-character id still reaches the client (trailers stay under 8 KiB)', async () => {
      // Found by the fuzz suite: the whole id went into grpc-message and the status details, and the client dropped the
      // oversized trailers, so the call ended in a timeout instead of NOT_FOUND.
      const error = await grpcFailure(grpcClient.unary('GetTask', { id: '\u00e9'.repeat(20_000) }));
      expect(error.code).toBe(grpc.status.NOT_FOUND);
      expect(reasonOf(error)).toBe('TASK_NOT_FOUND');
    });

    it('a task with data and metadata nested to the limit is readable on every binding (GetTask, ListTasks)', async () => {
      const contextId = randomUUID();
      const message = `{"messageId":"${randomUUID()}","role":"ROLE_USER","contextId":"${contextId}","metadata":${nestedObjects(31)},"parts":[{"data":${nestedArrays(32)}}]}`;
      const sent = await http(
        'POST',
        `${agent.url}/message:send`,
        `{"message":${message},"configuration":{"returnImmediately":true}}`,
      );
      expect(sent.status).toBe(200);
      const id: string = sent.body.task.id;
      const viaRest = await http('GET', `${agent.url}/tasks/${id}`);
      expect(viaRest.status).toBe(200);
      const viaRpc = await http('POST', `${agent.url}/`, rpc('GetTask', `{"id":"${id}"}`));
      expect(viaRpc.body.result.id).toBe(id);
      const viaGrpc = await grpcClient.unary('GetTask', { id });
      expect(viaGrpc.history).toEqual(viaRest.body.history);
      const listed = await grpcClient.unary('ListTasks', { contextId });
      expect((listed.tasks as Json[]).map((task) => task.id)).toEqual([id]);
    });
  });

  describe('ProtoJSON proto field names on the HTTP bindings (§5.7)', () => {
    let agent: RunningAgent;

    beforeAll(async () => {
      agent = await startConformanceAgent({ adapter });
    });
    afterAll(() => agent.close());

    it('accepts message_id, context_id and configuration.history_length in a body, on both bindings', async () => {
      const contextId = randomUUID();
      const send = `{"message":{"message_id":"${randomUUID()}","context_id":"${contextId}","role":"ROLE_USER","parts":[{"text":"echo hi","media_type":"text/plain"}]},"configuration":{"history_length":0}}`;
      const rest = await http('POST', `${agent.url}/message:send`, send);
      expect(rest.status).toBe(200);
      expect(rest.body.task).toMatchObject({ contextId, status: { state: 'TASK_STATE_COMPLETED' } });
      expect(rest.body.task.history).toBeUndefined();
      const viaRpc = await http('POST', `${agent.url}/`, rpc('SendMessage', send));
      expect(viaRpc.body.result.task).toMatchObject({ contextId, status: { state: 'TASK_STATE_COMPLETED' } });
      // Output stays lowerCamelCase.
      expect(rest.text).not.toMatch(/_id"|history_length/);
    });

    it('accepts proto names in query parameters (history_length, page_size, context_id)', async () => {
      const contextId = randomUUID();
      for (let i = 0; i < 2; i++) {
        await http(
          'POST',
          `${agent.url}/message:send`,
          `{"message":{"messageId":"${randomUUID()}","contextId":"${contextId}","role":"ROLE_USER","parts":[{"text":"echo ${i}"}]}}`,
        );
      }
      const page = await http('GET', `${agent.url}/tasks?context_id=${contextId}&page_size=1&history_length=0`);
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ pageSize: 1, totalSize: 2 });
      expect(page.body.tasks[0].history).toBeUndefined();
    });

    it('refuses a field given under both names', async () => {
      const send = '{"message":{"messageId":"a","message_id":"b","role":"ROLE_USER","parts":[{"text":"echo hi"}]}}';
      expectRestError(await http('POST', `${agent.url}/message:send`, send), 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS');
    });

    it.each(['2147483648', '1e308'])(
      'refuses historyLength %s as out of int32 range, in bodies and queries',
      async (value) => {
        expectRestError(
          await http('GET', `${agent.url}/tasks/x?historyLength=${value === '1e308' ? '1' + '0'.repeat(308) : value}`),
          400,
          'INVALID_ARGUMENT',
          'INVALID_PARAMS',
        );
        expectJsonRpcError(
          await http('POST', `${agent.url}/`, rpc('GetTask', `{"id":"x","historyLength":${value}}`)),
          200,
          -32602,
          'INVALID_PARAMS',
        );
        const send = `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"echo"}]},"configuration":{"historyLength":${value}}}`;
        expectRestError(
          await http('POST', `${agent.url}/message:send`, send),
          400,
          'INVALID_ARGUMENT',
          'INVALID_PARAMS',
        );
      },
    );
  });
});

describe('answers on the bindings’ paths that no route takes', () => {
  describe.each(HTTP_ADAPTERS)('bindings at the app root (the conformance agent), on %s', (adapter) => {
    let agent: RunningAgent;

    beforeAll(async () => {
      agent = await startConformanceAgent({ adapter });
    });
    afterAll(() => agent.close());

    it.each([
      ['GET', '/message:send', 'POST'],
      ['DELETE', '/tasks/t-1', 'GET'],
      ['PUT', '/acme/tasks', 'GET'],
      ['DELETE', '/tasks/t-1/pushNotificationConfigs', 'GET, POST'],
      ['POST', '/tasks/t-1/pushNotificationConfigs/c-1', 'DELETE, GET'],
    ])('%s %s → 405 METHOD_NOT_ALLOWED as a google.rpc.Status, Allow: %s', async (method, path, allow) => {
      const answer = await http(method, `${agent.url}${path}`);
      expectRestError(answer, 405, 'UNIMPLEMENTED', 'METHOD_NOT_ALLOWED');
      expect(answer.headers.get('allow')).toBe(allow);
    });

    it.each(['/message:translate', '/tasks/t-1/artifacts', '/acme/tasks/t-1/pushNotificationConfigs/c-1/x'])(
      'GET %s → 404 METHOD_NOT_FOUND as a google.rpc.Status',
      async (path) => {
        expectRestError(await http('GET', `${agent.url}${path}`), 404, 'UNIMPLEMENTED', 'METHOD_NOT_FOUND');
      },
    );

    it.each(['GET', 'PUT', 'DELETE'])(
      '%s / (the JSON-RPC endpoint) → HTTP 405 with a JSON-RPC error, Allow: POST',
      async (method) => {
        const answer = await http(method, `${agent.url}/`);
        expectJsonRpcError(answer, 405, -32600, 'METHOD_NOT_ALLOWED', null);
        expect(answer.headers.get('allow')).toBe('POST');
      },
    );

    it('the push-config routes are routes on every method they serve: a task that does not exist is TaskNotFound (spec §3.1.7–§3.1.10)', async () => {
      for (const [method, path] of [
        ['POST', '/tasks/t-1/pushNotificationConfigs'],
        ['GET', '/tasks/t-1/pushNotificationConfigs'],
        ['GET', '/tasks/t-1/pushNotificationConfigs/c-1'],
        ['DELETE', '/tasks/t-1/pushNotificationConfigs/c-1'],
        ['GET', '/acme/tasks/t-1/pushNotificationConfigs'],
      ]) {
        const answer = await http(
          method,
          `${agent.url}${path}`,
          method === 'POST' ? '{"url":"https://example.com/hook"}' : undefined,
        );
        expectRestError(answer, 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
      }
    });

    it("leaves the app's other paths to Nest", async () => {
      const answer = await http('GET', `${agent.url}/somewhere/else`);
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ statusCode: 404 });
    });
  });

  describe('bindings under their default prefixes', () => {
    let app: INestApplication;
    let url: string;

    beforeAll(async () => {
      ({ app, url } = await startTestApp(DeepSkillModule));
    });
    afterAll(() => app.close());

    it('an unknown path under /a2a/rest → 404 METHOD_NOT_FOUND; a wrong method → 405', async () => {
      expectRestError(await http('GET', `${url}/a2a/rest/nothing/here`), 404, 'UNIMPLEMENTED', 'METHOD_NOT_FOUND');
      expectRestError(await http('GET', `${url}/a2a/rest`), 404, 'UNIMPLEMENTED', 'METHOD_NOT_FOUND');
      expectRestError(await http('PATCH', `${url}/a2a/rest/tasks/t-1`), 405, 'UNIMPLEMENTED', 'METHOD_NOT_ALLOWED');
    });

    it('GET /a2a/jsonrpc → 405 with a JSON-RPC error', async () => {
      expectJsonRpcError(await http('GET', `${url}/a2a/jsonrpc`), 405, -32600, 'METHOD_NOT_ALLOWED', null);
    });

    it("an OPTIONS request is not the bindings' to answer", async () => {
      const answer = await fetch(`${url}/a2a/rest/message:send`, { method: 'OPTIONS' });
      expect(answer.status).not.toBe(405);
    });
  });
});

/** Nests `levels` arrays around 1 without recursion. */
function nestedValue(levels: number): JsonValue {
  let value: JsonValue = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

/** Answers `deep <n>` with an artifact whose data nests n levels; anything else with a flat one. */
@AgentSkill({ id: 'deep', name: 'Deep', description: 'Emits nested data on request', tags: ['test'] })
class DeepSkill extends A2aSkillHandler {
  handle({ text }: SkillContext) {
    const levels = Number(/^deep (\d+)$/.exec(text)?.[1] ?? 0);
    return [artifact({ data: nestedValue(levels) }), complete()];
  }
}

@Module({
  imports: [A2aModule.forRoot({ card: { name: 'Deep', description: 'Nests data' } })],
  providers: [DeepSkill],
})
class DeepSkillModule {}

describe('what skills emit is held to the same depth', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await startTestApp(DeepSkillModule));
  });
  afterAll(() => app.close());

  const send = (text: string) =>
    http(
      'POST',
      `${url}/a2a/rest/message:send`,
      JSON.stringify({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] } }),
    );

  it('an artifact nested to the limit completes the task', async () => {
    const answer = await send('deep 32');
    expect(answer.body.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answer.body.task.artifacts[0].parts[0].data).toEqual(nestedValue(32));
  });

  it.each([33, 5000])(
    'an artifact %i levels deep fails the task cleanly, and the failure is recorded',
    async (levels) => {
      const answer = await send(`deep ${levels}`);
      expect(answer.status).toBe(200);
      expect(answer.body.task.status.state).toBe('TASK_STATE_FAILED');
      expect(answer.body.task.artifacts).toBeUndefined();
      const stored = await http('GET', `${url}/a2a/rest/tasks/${answer.body.task.id}`);
      expect(stored.body.status.state).toBe('TASK_STATE_FAILED');
      expect(stored.text).not.toMatch(/maxJsonDepth|at .*\(/);
    },
  );
});

describe('limits.maxJsonDepth', () => {
  it('applies a smaller limit to requests', async () => {
    @Module({
      imports: [
        A2aModule.forRoot({ card: { name: 'Shallow', description: 'Nests little' }, limits: { maxJsonDepth: 3 } }),
      ],
      providers: [DeepSkill],
    })
    class ShallowModule {}
    const { app, url } = await startTestApp(ShallowModule);
    try {
      const message = (data: string) => `{"message":${dataMessage(randomUUID(), data)}}`;
      expect((await http('POST', `${url}/a2a/rest/message:send`, message(nestedArrays(3)))).status).toBe(200);
      expectRestError(
        await http('POST', `${url}/a2a/rest/message:send`, message(nestedArrays(4))),
        400,
        'INVALID_ARGUMENT',
        'INVALID_PARAMS',
      );
    } finally {
      await app.close();
    }
  });

  it.each([0, 41, 2.5])('stops the app at bootstrap when it is %d', async (maxJsonDepth) => {
    @Module({
      imports: [A2aModule.forRoot({ card: { name: 'Bad', description: 'Bad limit' }, limits: { maxJsonDepth } })],
      providers: [DeepSkill],
    })
    class BadLimitModule {}
    const boot = Test.createTestingModule({ imports: [BadLimitModule] }).compile();
    await expect(boot).rejects.toThrow(
      A2aMessages.invalidOption('limits.maxJsonDepth', maxJsonDepth, 'an integer from 1 to 40'),
    );
  });
});
