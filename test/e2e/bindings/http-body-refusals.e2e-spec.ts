import 'reflect-metadata';
import { Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
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
import { createTestApplication, TEST_HTTP_ADAPTER } from '../../fixtures/test-app.js';

/**
 * Request bodies the HTTP bindings refuse, as a client sees them, on Express (served from node's request event, and
 * through Express with `directDispatch: false`) and on Fastify (`A2A_TEST_HTTP_ADAPTER=fastify`):
 * - every POST must declare `application/json` or `application/a2a+json`: the requests a browser sends cross-site
 *   without a CORS preflight (text/plain, a form, multipart/form-data, no Content-Type) get 415 in the binding's
 *   shape and change nothing, even when the app's urlencoded parser made sense of the form;
 * - a body far over the limit gets its 413 once the client has sent it, not a connection closed under its upload.
 */

/** Completes with the text; `hold` stays WORKING until canceled. */
@AgentSkill({ id: 'echo', name: 'Echo', description: 'Echoes, or holds', tags: ['test'], default: true })
class EchoSkill extends A2aSkillHandler {
  async *handle({ text, signal }: SkillContext): AsyncIterable<SkillEvent> {
    yield working();
    if (text === 'hold') await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    if (signal.aborted) return;
    yield artifact(text);
    yield complete();
  }
}

const RPC = '/a2a/jsonrpc';
const REST = '/a2a/rest';
const UNSUPPORTED = { reason: 'UNSUPPORTED_MEDIA_TYPE', domain: 'a2a-protocol.org' };

const userMessage = (text: string) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] });
const rpcSend = (text: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'SendMessage', params: { message: userMessage(text) } });
const restSend = (text: string) => JSON.stringify({ message: userMessage(text) });

/** SendMessage as the form a page can post: Nest's urlencoded parser reads it into the request's shape. */
const REST_FORM = 'message[messageId]=m2&message[role]=ROLE_USER&message[parts][0][text]=hi';
const RPC_FORM =
  'jsonrpc=2.0&id=7&method=SendMessage&params[message][messageId]=m3&params[message][role]=ROLE_USER&params[message][parts][0][text]=hi';

function multipart(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return form;
}

/** A request a browser may send cross-site without asking the server first. `undefined` type: no Content-Type. */
interface CrossSiteCase {
  name: string;
  binding: 'jsonrpc' | 'rest' | 'v03-rest';
  path: string;
  body: () => string | Uint8Array | FormData;
  type?: string;
  headers?: Record<string, string>;
}

const CROSS_SITE: CrossSiteCase[] = [
  {
    name: 'JSON-RPC SendMessage as text/plain',
    binding: 'jsonrpc',
    path: RPC,
    body: () => rpcSend('plain'),
    type: 'text/plain',
  },
  {
    name: 'JSON-RPC SendMessage as text/plain;charset=UTF-8',
    binding: 'jsonrpc',
    path: RPC,
    body: () => rpcSend('plain'),
    type: 'text/plain;charset=UTF-8',
  },
  {
    name: 'JSON-RPC SendMessage as a form (its id not echoed)',
    binding: 'jsonrpc',
    path: RPC,
    body: () => RPC_FORM,
    type: 'application/x-www-form-urlencoded',
  },
  {
    name: 'JSON-RPC SendMessage as multipart/form-data',
    binding: 'jsonrpc',
    path: RPC,
    body: () => multipart({ jsonrpc: '2.0', method: 'SendMessage' }),
  },
  {
    name: 'JSON-RPC SendMessage without a Content-Type',
    binding: 'jsonrpc',
    path: RPC,
    body: () => new TextEncoder().encode(rpcSend('untyped')),
  },
  {
    name: 'v0.3 JSON-RPC message/send as text/plain',
    binding: 'jsonrpc',
    path: RPC,
    body: () =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'message/send',
        params: {
          message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'old' }] },
        },
      }),
    type: 'text/plain',
    headers: { 'A2A-Version': '0.3' },
  },
  {
    name: 'HTTP+JSON SendMessage as a form',
    binding: 'rest',
    path: `${REST}/message:send`,
    body: () => REST_FORM,
    type: 'application/x-www-form-urlencoded',
  },
  {
    name: 'HTTP+JSON SendMessage as text/plain',
    binding: 'rest',
    path: `${REST}/message:send`,
    body: () => restSend('plain'),
    type: 'text/plain',
  },
  {
    name: 'HTTP+JSON SendMessage as multipart/form-data',
    binding: 'rest',
    path: `${REST}/message:send`,
    body: () => multipart({ 'message[messageId]': 'm4', 'message[parts][0][text]': 'hi' }),
  },
  {
    name: 'HTTP+JSON SendMessage without a Content-Type',
    binding: 'rest',
    path: `${REST}/message:send`,
    body: () => new TextEncoder().encode(restSend('untyped')),
  },
  {
    name: 'HTTP+JSON SendMessage as application/json-seq',
    binding: 'rest',
    path: `${REST}/message:send`,
    body: () => restSend('seq'),
    type: 'application/json-seq',
  },
  {
    name: 'HTTP+JSON SendMessage with a Content-Type that does not parse',
    binding: 'rest',
    path: `${REST}/message:send`,
    body: () => restSend('odd'),
    type: 'json',
  },
  {
    name: 'HTTP+JSON SendMessage as a form too large for the urlencoded parser',
    binding: 'rest',
    path: `${REST}/message:send`,
    body: () => `${REST_FORM}&metadata[pad]=${'x'.repeat(120_000)}`,
    type: 'application/x-www-form-urlencoded',
  },
  {
    name: 'v0.3 HTTP+JSON message:send as a form',
    binding: 'v03-rest',
    path: `${REST}/v1/message:send`,
    body: () => 'message[messageId]=m5&message[content][0][text]=hi',
    type: 'application/x-www-form-urlencoded',
  },
];

interface Answer {
  status: number;
  contentType: string | null;
  body: any;
}

async function post(
  base: string,
  path: string,
  body: string | Uint8Array | FormData | undefined,
  type?: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'A2A-Version': '1.0', ...(type ? { 'Content-Type': type } : {}), ...headers },
    body,
  });
  const text = await res.text();
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    body: text ? JSON.parse(text) : undefined,
  };
}

function expectRefusal(answer: Answer, binding: CrossSiteCase['binding']): void {
  expect(answer.status).toBe(415);
  if (binding === 'jsonrpc') {
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(answer.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.any(String), data: [expect.objectContaining(UNSUPPORTED)] },
    });
  } else if (binding === 'rest') {
    expect(answer.contentType).toMatch(/^application\/a2a\+json/);
    expect(answer.body).toEqual({
      error: {
        code: 415,
        status: 'INVALID_ARGUMENT',
        message: expect.any(String),
        details: [expect.objectContaining(UNSUPPORTED)],
      },
    });
  } else {
    expect(answer.body).toEqual({
      code: -32600,
      message: expect.any(String),
      data: [expect.objectContaining(UNSUPPORTED)],
    });
  }
}

/** An upload of `size` bytes through node's own client, which reports a connection closed under the upload (EPIPE). */
function upload(
  base: string,
  path: string,
  type: string,
  size: number,
): Promise<{ status?: number; body?: any; uploadError?: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    let answer: { status: number; body: any } | undefined;
    let uploadError: string | undefined;
    const req = http.request(
      {
        host: hostname,
        port,
        method: 'POST',
        path,
        agent: false,
        headers: { 'content-type': type, 'content-length': size, 'a2a-version': '1.0' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => (answer = { status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => (uploadError = error.code ?? error.message));
    req.on('close', () => resolve({ ...answer, uploadError }));
    req.end(Buffer.alloc(size, 0x20));
  });
}

/** Express serves requests from node's request event unless `directDispatch` is off; Fastify has one path. */
const PATHS: Array<[string, boolean]> =
  TEST_HTTP_ADAPTER === 'express'
    ? [
        ['served from node’s request event', true],
        ['through Express (directDispatch: false)', false],
      ]
    : [['through Fastify', false]];

describe.each(PATHS)(`the HTTP bindings on ${TEST_HTTP_ADAPTER}, %s`, (_path, direct) => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    @Module({
      imports: [
        A2aModule.forRoot({
          card: { name: 'Refusals', description: 'Echoes' },
          compat: { v03: true },
          ...(direct ? {} : { directDispatch: false }),
        }),
      ],
      providers: [EchoSkill],
    })
    class AppModule {}
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = createTestApplication(moduleRef);
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(() => app.close());

  async function taskCount(): Promise<number> {
    const res = await fetch(`${url}${REST}/tasks`, { headers: { 'A2A-Version': '1.0' } });
    return ((await res.json()) as { totalSize: number }).totalSize;
  }

  it('takes the path under test', async () => {
    await taskCount();
    expect(app.get(DirectHttpDispatcher).active).toBe(direct);
  });

  it.each(CROSS_SITE.map((c) => [c.name, c] as const))(
    'refuses %s with 415 in the binding’s shape, and creates no task',
    async (_name, c) => {
      const before = await taskCount();
      expectRefusal(await post(url, c.path, c.body(), c.type, c.headers), c.binding);
      expect(await taskCount()).toBe(before);
    },
  );

  it('refuses a POST without a body when it has no Content-Type either: the task stays WORKING', async () => {
    const held = await post(
      url,
      `${REST}/message:send`,
      JSON.stringify({ message: userMessage('hold'), configuration: { returnImmediately: true } }),
      'application/json',
    );
    const id = held.body.task.id as string;
    expectRefusal(await post(url, `${REST}/tasks/${id}:cancel`, undefined), 'rest');
    const rpcCancel = await post(
      url,
      RPC,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id } }),
      'text/plain',
    );
    expectRefusal(rpcCancel, 'jsonrpc');
    const task = await fetch(`${url}${REST}/tasks/${id}`, { headers: { 'A2A-Version': '1.0' } });
    expect(((await task.json()) as any).status.state).toBe('TASK_STATE_WORKING');
    // Without a body but declaring JSON, as a2a-js clients send it: canceled.
    const canceled = await post(url, `${REST}/tasks/${id}:cancel`, undefined, 'application/json');
    expect(canceled.body.status.state).toBe('TASK_STATE_CANCELED');
  });

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON;Charset=UTF-8',
    'application/a2a+json',
    'application/a2a+json; charset=utf-8',
  ])('serves %s on both bindings', async (type) => {
    const rpc = await post(url, RPC, rpcSend('typed'), type);
    expect(rpc.body).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      result: { task: { status: { state: 'TASK_STATE_COMPLETED' } } },
    });
    const rest = await post(url, `${REST}/message:send`, restSend('typed'), type);
    expect(rest.status).toBe(200);
    expect(rest.body.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  describe('a 20 MB body, far over the limit, answered once the client has sent it', () => {
    const SIZE = 20 * 1024 * 1024;

    it.each(['application/json', 'application/a2a+json'])('%s: 413 on JSON-RPC and HTTP+JSON', async (type) => {
      const rpc = await upload(url, RPC, type, SIZE);
      expect(rpc).toEqual({
        status: 413,
        body: {
          jsonrpc: '2.0',
          id: null,
          error: {
            code: -32600,
            message: expect.any(String),
            data: [expect.objectContaining({ reason: 'PAYLOAD_TOO_LARGE' })],
          },
        },
      });
      const rest = await upload(url, `${REST}/message:send`, type, SIZE);
      expect(rest).toEqual({
        status: 413,
        body: {
          error: {
            code: 413,
            status: 'RESOURCE_EXHAUSTED',
            message: expect.any(String),
            details: [expect.objectContaining({ reason: 'PAYLOAD_TOO_LARGE' })],
          },
        },
      });
    });

    it('text/plain: 415, without reading it', async () => {
      expect(await upload(url, RPC, 'text/plain', SIZE)).toMatchObject({
        status: 415,
        body: { error: { data: [expect.objectContaining(UNSUPPORTED)] } },
      });
      expect(await upload(url, `${REST}/message:send`, 'text/plain', SIZE)).toMatchObject({
        status: 415,
        body: { error: { code: 415 } },
      });
    });

    it('keeps serving', async () => {
      expect(
        (await post(url, `${REST}/message:send`, restSend('after'), 'application/json')).body.task.status.state,
      ).toBe('TASK_STATE_COMPLETED');
    });
  });
});
