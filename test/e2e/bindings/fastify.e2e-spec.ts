import 'reflect-metadata';
import { HttpException, Injectable, Module, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  a2aInvocationOf,
  artifact,
  complete,
  setA2aPrincipal,
  working,
  type A2aInvocation,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';

/**
 * The module on `@nestjs/platform-fastify`, as on Express (the conformance-agent suites, interop and equivalence
 * included, also run on both adapters): the card at the well-known URI under a global prefix, both bindings, SSE,
 * both JSON media types, the body limit, CORS, and guards written for Fastify's request and reply.
 */

/** A guard written for Fastify: reads `request.headers`, answers with `reply.header()`, leaves `request.user`. */
@Injectable()
class FastifyKeyGuard implements CanActivate {
  static readonly seen: Array<A2aInvocation | undefined> = [];

  canActivate(context: ExecutionContext): boolean {
    FastifyKeyGuard.seen.push(a2aInvocationOf(context));
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: unknown }>();
    context.switchToHttp().getResponse<FastifyReply>().header('x-guard', 'fastify');
    if (request.headers['x-throttle']) throw new HttpException('Too Many Requests', 429);
    const key = request.headers['x-key'];
    if (key === 'alice') setA2aPrincipal(context, { id: 'alice', authenticated: true });
    else if (key === 'bob') request.user = { id: 'bob' };
    return true;
  }
}

@AgentSkill({ id: 'echo', name: 'Echo', description: 'Echoes, or streams three chunks', tags: ['test'] })
class EchoSkill extends A2aSkillHandler {
  async *handle({ text, principal }: SkillContext): AsyncIterable<SkillEvent> {
    yield working();
    if (text === 'chunks') {
      for (let i = 1; i <= 3; i++) yield artifact(`chunk ${i}`, { artifactId: 'a', append: i > 1, lastChunk: i === 3 });
    } else {
      yield artifact({ data: { text, principal: principal.id } });
    }
    yield complete();
  }
}

@Module({
  imports: [
    A2aModule.forRoot({
      card: { name: 'On Fastify', description: 'Fastify adapter' },
      baseUrl: 'https://agent.example',
      limits: { maxBodyBytes: 4096 },
    }),
  ],
  providers: [EchoSkill, { provide: APP_GUARD, useClass: FastifyKeyGuard }],
})
class FastifyAppModule {}

describe('on @nestjs/platform-fastify', () => {
  let app: NestFastifyApplication;
  let url: string;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [FastifyAppModule] }).compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    app.setGlobalPrefix('api');
    app.enableCors({ origin: 'https://ui.example' });
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(() => app.close());
  beforeEach(() => (FastifyKeyGuard.seen.length = 0));

  const message = (text: string) => ({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] } });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}, contentType = 'application/json') =>
    fetch(`${url}/api${path}`, {
      method: 'POST',
      headers: { 'content-type': contentType, 'a2a-version': '1.0', ...headers },
      body: JSON.stringify(body),
    });

  it('serves the card at the well-known URI, its URLs under the global prefix', async () => {
    const res = await fetch(`${url}/.well-known/agent-card.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toEqual(expect.any(String));
    expect(((await res.json()) as { supportedInterfaces: unknown }).supportedInterfaces).toEqual([
      { url: 'https://agent.example/api/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'https://agent.example/api/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
  });

  it.each(['application/json', 'application/a2a+json'])(
    'HTTP+JSON and JSON-RPC take %s bodies; a guard sees the invocation',
    async (type) => {
      const rest = await post(
        '/a2a/rest/message:send',
        message('hi'),
        { 'x-key': 'alice', origin: 'https://ui.example' },
        type,
      );
      expect(rest.status).toBe(200);
      expect(rest.headers.get('content-type')).toMatch(/^application\/a2a\+json/);
      expect(rest.headers.get('x-guard')).toBe('fastify');
      expect(rest.headers.get('access-control-allow-origin')).toBe('https://ui.example');
      const task = ((await rest.json()) as any).task;
      expect(task.artifacts[0].parts[0].data).toEqual({ text: 'hi', principal: 'alice' });
      const rpc = await post(
        '/a2a/jsonrpc',
        { jsonrpc: '2.0', id: 4, method: 'GetTask', params: { id: task.id } },
        { 'x-key': 'alice' },
        type,
      );
      expect(await rpc.json()).toMatchObject({
        id: 4,
        result: { id: task.id, status: { state: 'TASK_STATE_COMPLETED' } },
      });
      expect(FastifyKeyGuard.seen.map((call) => call?.operation)).toEqual(['SendMessage', 'GetTask']);
    },
  );

  it('Passport-style request.user is the principal', async () => {
    const res = await post('/a2a/rest/message:send', message('who'), { 'x-key': 'bob' });
    expect(((await res.json()) as any).task.artifacts[0].parts[0].data.principal).toBe('user:bob');
  });

  it('streams SSE', async () => {
    const res = await post('/a2a/rest/message:stream', message('chunks'));
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const frames = (await res.text()).split('\n\n').filter((frame) => frame.includes('data: '));
    // The task (WORKING), three chunks, COMPLETED.
    expect(frames).toHaveLength(5);
    expect(frames.at(-1)).toContain('TASK_STATE_COMPLETED');
  });

  it.each(['application/json', 'application/a2a+json'])(
    'refuses a %s body over limits.maxBodyBytes with 413 in each binding’s shape',
    async (type) => {
      const big = message('x'.repeat(5000));
      const rest = await post('/a2a/rest/message:send', big, {}, type);
      expect(rest.status).toBe(413);
      expect(await rest.json()).toMatchObject({ error: { code: 413, status: 'RESOURCE_EXHAUSTED' } });
      const rpc = await post('/a2a/jsonrpc', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: big }, {}, type);
      expect(rpc.status).toBe(413);
      expect(await rpc.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    },
  );

  it('answers malformed JSON, unknown paths and wrong methods in the bindings’ shapes', async () => {
    const malformed = await fetch(`${url}/api/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"message":',
    });
    expect(await malformed.json()).toMatchObject({
      error: { code: 400, details: [expect.objectContaining({ reason: 'PARSE_ERROR' })] },
    });
    expect((await fetch(`${url}/api/a2a/rest/nothing/here`)).status).toBe(404);
    const wrongMethod = await fetch(`${url}/api/a2a/rest/message:send`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
  });

  it('an app’s HttpException 429 stays 429', async () => {
    const res = await post('/a2a/rest/tasks/t-1:cancel', {}, { 'x-throttle': '1' });
    expect(res.status).toBe(429);
    expect(await res.json()).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
  });
});
