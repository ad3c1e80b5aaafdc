import 'reflect-metadata';
import {
  Injectable,
  Module,
  UnauthorizedException,
  type CallHandler,
  type CanActivate,
  type ExecutionContext,
  type INestApplication,
  type NestInterceptor,
} from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import type { Request, Response } from 'express';
import type { Observable } from 'rxjs';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  complete,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { createTestApplication } from '../../fixtures/test-app.js';

@AgentSkill({ id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['echo'] })
class EchoSkill extends A2aSkillHandler {
  handle(context: SkillContext): SkillEvent[] {
    return [complete(context.text)];
  }
}

/** A user's app-wide API-key guard: 401 with a challenge without the key, 403 (returning false) for a guest. */
@Injectable()
class ApiKeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    if (req.headers['x-api-key'] !== 'secret') {
      context
        .switchToHttp()
        .getResponse<Response>()
        .setHeader('WWW-Authenticate', 'ApiKey realm="a2a", in="header", name="x-api-key"');
      throw new UnauthorizedException('A valid x-api-key header is required');
    }
    return req.headers['x-role'] !== 'guest';
  }
}

/** A user's app-wide interceptor: it must run around JSON-RPC calls as around any route. */
@Injectable()
class StampInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    context.switchToHttp().getResponse<Response>().setHeader('X-Intercepted', 'yes');
    return next.handle();
  }
}

@Module({
  imports: [A2aModule.forRoot({ card: { name: 'Guarded agent', description: 'Needs an API key' } })],
  providers: [
    EchoSkill,
    { provide: APP_GUARD, useClass: ApiKeyGuard },
    { provide: APP_INTERCEPTOR, useClass: StampInterceptor },
  ],
})
class AppModule {}

describe('JSON-RPC behind a global guard (spec §7.4, §7.5)', () => {
  let app: INestApplication;
  let endpoint: string;

  const sendMessage = (headers: Record<string, string>, method = 'SendMessage', contentType = 'application/json') =>
    fetch(endpoint, {
      method: 'POST',
      headers: { 'Content-Type': contentType, ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method,
        params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'let me in' }] } },
      }),
    });

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = createTestApplication(moduleRef);
    await app.listen(0, '127.0.0.1');
    endpoint = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/a2a/jsonrpc`;
  });
  afterAll(() => app.close());

  it('answers a call without the key with HTTP 401, the guard challenge and a -31401 envelope echoing the id', async () => {
    const res = await sendMessage({});
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('www-authenticate')).toBe('ApiKey realm="a2a", in="header", name="x-api-key"');
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -31401,
        message: 'A valid x-api-key header is required',
        data: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'UNAUTHENTICATED',
            domain: 'a2a-protocol.org',
          },
        ],
      },
    });
  });

  it('guards streaming methods before any SSE byte, and a2a+json bodies (read before the guard runs: the id is echoed)', async () => {
    const stream = await sendMessage({}, 'SendStreamingMessage');
    expect(stream.status).toBe(401);
    expect(stream.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await stream.json()).toMatchObject({ error: { code: -31401 } });

    const typed = await sendMessage({}, 'SendMessage', 'application/a2a+json');
    expect(typed.status).toBe(401);
    expect(await typed.json()).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -31401 } });
  });

  it('answers a guard that returns false with HTTP 403 and -31403', async () => {
    const res = await sendMessage({ 'x-api-key': 'secret', 'x-role': 'guest' });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -31403, data: [expect.objectContaining({ reason: 'PERMISSION_DENIED' })] },
    });
  });

  it('serves the call when the guard lets it through, with the interceptor applied', async () => {
    const res = await sendMessage({ 'x-api-key': 'secret' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-intercepted')).toBe('yes');
    const body = await res.json();
    expect(body).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      result: { task: { status: { state: 'TASK_STATE_COMPLETED' } } },
    });
  });
});
