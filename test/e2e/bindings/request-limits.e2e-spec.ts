import 'reflect-metadata';
import {
  Body,
  Catch,
  Controller,
  Get,
  Module,
  Post,
  type ArgumentsHost,
  type ExceptionFilter,
  type INestApplication,
  type Provider,
} from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  type SkillContext,
} from '../../../libs/a2a/src/index.js';
import { createTestApplication } from '../../fixtures/test-app.js';

@AgentSkill({
  id: 'echo',
  name: 'Echo',
  description: 'Completes with the text as an artifact',
  tags: ['test'],
  default: true,
})
class EchoSkill extends A2aSkillHandler {
  handle({ text }: SkillContext) {
    return [artifact(text), complete()];
  }
}

/** A route of the app itself, which must keep Nest's own error answers. */
@Controller('app')
class AppEchoController {
  @Post('echo')
  echo(@Body() body: unknown): unknown {
    return body;
  }

  @Get('hello')
  hello(): string {
    return 'hello';
  }

  @Get('boom')
  boom(): never {
    throw new Error('boom');
  }
}

/** The app's own catch-all filter, which must stay in charge of the app's routes. */
@Catch()
class TeapotFilter implements ExceptionFilter {
  catch(_exception: unknown, host: ArgumentsHost): void {
    host.switchToHttp().getResponse().status(418).json({ teapot: true });
  }
}

const MAX_BODY_BYTES = 256 * 1024;
const MALFORMED = '{"message": {"messageId": "m-1",';
const INVALID_UTF8 = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
/** Above both Nest's 100 kB limit for application/json and the module's `maxBodyBytes` for application/a2a+json. */
const OVERSIZED = JSON.stringify({ message: userMessage('x'.repeat(MAX_BODY_BYTES + 1024)) });

interface HttpResult {
  status: number;
  contentType: string | null;
  body: any;
}

function userMessage(text: string) {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] };
}

function jsonRpcSend(text: string) {
  return JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'SendMessage', params: { message: userMessage(text) } });
}

async function post(url: string, body: string | Buffer, contentType: string): Promise<HttpResult> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': contentType, 'A2A-Version': '1.0' },
    body,
  });
  const text = await res.text();
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    body: text ? JSON.parse(text) : undefined,
  };
}

async function bootApp(
  extras: { jsonRpc?: { path: string }; rest?: { path: string } },
  providers: Provider[] = [],
): Promise<{ app: INestApplication; url: string }> {
  @Module({
    imports: [
      A2aModule.forRoot({
        card: { name: 'Limits agent', description: 'Echoes' },
        limits: { maxBodyBytes: MAX_BODY_BYTES },
        ...extras,
      }),
    ],
    controllers: [AppEchoController],
    providers: [EchoSkill, ...providers],
  })
  class AppModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = createTestApplication(moduleRef);
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}

function expectRestError(result: HttpResult, code: number, status: string, reason?: string): void {
  expect(result.status).toBe(code);
  expect(result.contentType).toMatch(/^application\/a2a\+json/);
  expect(result.body).toEqual({ error: { code, status, message: expect.any(String), details: expect.any(Array) } });
  if (reason)
    expect(result.body.error.details).toContainEqual(expect.objectContaining({ reason, domain: 'a2a-protocol.org' }));
}

function expectJsonRpcError(result: HttpResult, httpStatus: number, code: number, reason?: string): void {
  expect(result.status).toBe(httpStatus);
  expect(result.contentType).toMatch(/^application\/json/);
  expect(result.body).toEqual({
    jsonrpc: '2.0',
    id: null,
    error: { code, message: expect.any(String), data: expect.any(Array) },
  });
  if (reason) expect(result.body.error.data).toContainEqual(expect.objectContaining({ reason }));
}

describe.each(['application/json', 'application/a2a+json'])('request bodies sent as %s', (contentType) => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await bootApp({}));
  });
  afterAll(() => app.close());

  /** The server still answers a valid call on both bindings. */
  async function expectStillServing(): Promise<void> {
    const rest = await post(
      `${url}/a2a/rest/message:send`,
      JSON.stringify({ message: userMessage('still here') }),
      contentType,
    );
    expect(rest.status).toBe(200);
    expect(rest.body.task.status.state).toBe('TASK_STATE_COMPLETED');
    const rpc = await post(`${url}/a2a/jsonrpc`, jsonRpcSend('still here'), contentType);
    expect(rpc.body).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      result: { task: { status: { state: 'TASK_STATE_COMPLETED' } } },
    });
  }

  it('HTTP+JSON: malformed JSON → 400 INVALID_ARGUMENT as a google.rpc.Status', async () => {
    const result = await post(`${url}/a2a/rest/message:send`, MALFORMED, contentType);
    expectRestError(result, 400, 'INVALID_ARGUMENT');
    expect(result.body.error.message).toBe('Invalid JSON payload');
    await expectStillServing();
  });

  it('JSON-RPC: malformed JSON → -32700 with id null', async () => {
    expectJsonRpcError(await post(`${url}/a2a/jsonrpc`, MALFORMED, contentType), 200, -32700);
    await expectStillServing();
  });

  it('HTTP+JSON: an oversized body → 413 RESOURCE_EXHAUSTED / PAYLOAD_TOO_LARGE', async () => {
    expectRestError(
      await post(`${url}/a2a/rest/message:send`, OVERSIZED, contentType),
      413,
      'RESOURCE_EXHAUSTED',
      'PAYLOAD_TOO_LARGE',
    );
    await expectStillServing();
  });

  it('JSON-RPC: an oversized body → HTTP 413 with a -32600 error', async () => {
    expectJsonRpcError(await post(`${url}/a2a/jsonrpc`, OVERSIZED, contentType), 413, -32600, 'PAYLOAD_TOO_LARGE');
    await expectStillServing();
  });

  it("keeps Nest's own answer for the app's other routes", async () => {
    const result = await post(`${url}/app/echo`, MALFORMED, contentType);
    if (contentType === 'application/json') {
      expect(result.status).toBe(400);
      expect(result.body).toMatchObject({ statusCode: 400 });
    } else {
      // The app's parser ignores this media type, so its route just sees no body: no error at all.
      expect(result.status).toBe(201);
    }
    await expectStillServing();
  });
});

describe('application/a2a+json bodies, which the module reads itself', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await bootApp({}));
  });
  afterAll(() => app.close());

  it('accepts a 150 kB application/a2a+json body: its limit is the module option, not the parser default', async () => {
    const text = 'y'.repeat(150 * 1024);
    const result = await post(
      `${url}/a2a/rest/message:send`,
      JSON.stringify({ message: userMessage(text) }),
      'application/a2a+json',
    );
    expect(result.status).toBe(200);
    expect(result.body.task.artifacts[0].parts[0].text).toHaveLength(text.length);
  });

  // Nest's parser decodes application/json leniently (invalid bytes become U+FFFD); the module's reader does not (spec §14.1.1).
  it('refuses an application/a2a+json body that is not UTF-8 as unparsable, on both bindings', async () => {
    const rest = await post(`${url}/a2a/rest/message:send`, INVALID_UTF8, 'application/a2a+json');
    expectRestError(rest, 400, 'INVALID_ARGUMENT');
    expect(rest.body.error.message).toBe('Invalid JSON payload');
    expectJsonRpcError(await post(`${url}/a2a/jsonrpc`, INVALID_UTF8, 'application/a2a+json'), 200, -32700);
  });

  it('refuses a compressed application/a2a+json body rather than misreading it', async () => {
    const res = await fetch(`${url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/a2a+json', 'Content-Encoding': 'gzip' },
      body: Buffer.from([0x1f, 0x8b, 0x08, 0x00]),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.status).toBe('INVALID_ARGUMENT');
  });

  it('counts the bytes of a chunked upload, which declares no length', async () => {
    const chunk = new TextEncoder().encode(' '.repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > MAX_BODY_BYTES * 2) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/a2a+json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.details[0].reason).toBe('PAYLOAD_TOO_LARGE');
    expect(
      (
        await post(
          `${url}/a2a/rest/message:send`,
          JSON.stringify({ message: userMessage('ok') }),
          'application/a2a+json',
        )
      ).status,
    ).toBe(200);
  });
});

describe('pre-routing errors with both bindings mounted at the root', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await bootApp({ jsonRpc: { path: '/' }, rest: { path: '' } }));
  });
  afterAll(() => app.close());

  it('answers malformed JSON to an HTTP+JSON route, with or without a tenant, as a google.rpc.Status', async () => {
    expectRestError(await post(`${url}/message:send`, MALFORMED, 'application/json'), 400, 'INVALID_ARGUMENT');
    expectRestError(await post(`${url}/acme/message:send`, MALFORMED, 'application/json'), 400, 'INVALID_ARGUMENT');
    expectRestError(
      await post(`${url}/tasks/t-1:cancel`, OVERSIZED, 'application/json'),
      413,
      'RESOURCE_EXHAUSTED',
      'PAYLOAD_TOO_LARGE',
    );
  });

  it('answers malformed JSON to POST / as a JSON-RPC error', async () => {
    expectJsonRpcError(await post(`${url}/`, MALFORMED, 'application/json'), 200, -32700);
  });

  it("leaves the card, the app's routes and unknown routes to Nest", async () => {
    const card = await fetch(`${url}/.well-known/agent-card.json`);
    expect(card.status).toBe(200);
    const appRoute = await post(`${url}/app/echo`, MALFORMED, 'application/json');
    expect(appRoute.status).toBe(400);
    expect(appRoute.body).toMatchObject({ statusCode: 400 });
    const unknown = await fetch(`${url}/no/such/route`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ statusCode: 404 });
    expect(await (await fetch(`${url}/app/hello`)).text()).toBe('hello');
  });

  it('keeps serving both bindings afterwards', async () => {
    expect(
      (await post(`${url}/message:send`, JSON.stringify({ message: userMessage('ok') }), 'application/json')).status,
    ).toBe(200);
    expect((await post(`${url}/`, jsonRpcSend('ok'), 'application/json')).body.result.task.status.state).toBe(
      'TASK_STATE_COMPLETED',
    );
  });
});

describe("the app's own global exception filter", () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await bootApp({}, [{ provide: APP_FILTER, useClass: TeapotFilter }]));
  });
  afterAll(() => app.close());

  it("still answers the app's routes, body-parser errors included", async () => {
    expect((await fetch(`${url}/app/boom`)).status).toBe(418);
    expect((await post(`${url}/app/echo`, MALFORMED, 'application/json')).body).toEqual({ teapot: true });
  });

  it('does not take over the bindings', async () => {
    expectRestError(await post(`${url}/a2a/rest/message:send`, MALFORMED, 'application/json'), 400, 'INVALID_ARGUMENT');
    expectJsonRpcError(await post(`${url}/a2a/jsonrpc`, MALFORMED, 'application/json'), 200, -32700);
  });
});
