import 'reflect-metadata';
import {
  ForbiddenException,
  Injectable,
  Module,
  type CallHandler,
  type CanActivate,
  type ExecutionContext,
  type INestApplication,
  type NestInterceptor,
  Catch,
  UseGuards,
  type ArgumentsHost,
  type ExceptionFilter,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { Observable } from 'rxjs';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  SKILL_ID_METADATA_KEY,
  a2aInvocationOf,
  artifact,
  complete,
  setA2aPrincipal,
  type A2aInvocation,
  type SkillContext,
} from '../../../libs/a2a/src/index.js';
import { startTestApp } from '../../fixtures/test-app.js';

/**
 * One request path through Nest on the HTTP bindings: the app's guards and interceptors, and those given to the module,
 * run after the request is decoded and validated, on the direct path and through Express alike; they read the call
 * with `a2aInvocationOf`, set the principal with `setA2aPrincipal` (or leave Passport's `req.user`), and unexpected
 * errors reach `onUnexpectedError`.
 */

/** The app's guard, written for Express: `req.get()` only exists on Express's request prototype. */
@Injectable()
class AppGuard implements CanActivate {
  static readonly seen: Array<A2aInvocation | undefined> = [];

  canActivate(context: ExecutionContext): boolean {
    AppGuard.seen.push(a2aInvocationOf(context));
    const req = context.switchToHttp().getRequest<Request>();
    // As @nestjs/throttler does: Express's res.header(), and the client's address from req.ip.
    context
      .switchToHttp()
      .getResponse<Response>()
      .header('x-guarded-for', req.ip ? 'an address' : 'nobody');
    if (req.get('x-crash')) throw new Error('kaboom');
    if (req.get('x-quota')) throw new QuotaExceededError('Over quota');
    if (req.get('x-deny')) throw new ForbiddenException('Not for you');
    const user = req.get('x-user');
    if (user) setA2aPrincipal(context, { id: user, authenticated: true });
    // What Passport's AuthGuard does: the user on the request.
    const passport = req.get('x-passport-sub');
    if (passport) (req as Request & { user?: unknown }).user = { sub: passport, roles: ['reader'] };
    return true;
  }
}

class QuotaExceededError extends Error {}

/** Given to the module: answers the app's own quota error its own way. */
@Catch(QuotaExceededError)
class QuotaFilter implements ExceptionFilter {
  catch(exception: QuotaExceededError, host: ArgumentsHost): void {
    host.switchToHttp().getResponse<Response>().status(402).json({ quota: exception.message });
  }
}

/** Given to the module: it sees every A2A operation by name. */
@Injectable()
class OperationsInterceptor implements NestInterceptor {
  static readonly seen: string[] = [];

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    OperationsInterceptor.seen.push(`${context.getType()}:${context.getHandler().name}`);
    return next.handle();
  }
}

@AgentSkill({
  id: 'whoami',
  name: 'Who am I',
  description: 'Answers with the principal',
  tags: ['test'],
  default: true,
})
class WhoAmISkill extends A2aSkillHandler {
  handle({ principal }: SkillContext) {
    return [artifact({ data: { principal: principal.id, authenticated: principal.authenticated } }), complete()];
  }
}

/** On the admin skill's class: only the principal `admin` may use it. */
@Injectable()
class AdminOnlyGuard implements CanActivate {
  static readonly seen: string[] = [];

  canActivate(context: ExecutionContext): boolean {
    AdminOnlyGuard.seen.push(
      `${context.getClass().name}.${context.getHandler().name} ${a2aInvocationOf(context)?.operation}`,
    );
    return a2aInvocationOf(context)?.principal?.id === 'admin';
  }
}

@AgentSkill({ id: 'admin', name: 'Admin', description: 'For admins only', tags: ['test'] })
@UseGuards(AdminOnlyGuard)
class AdminSkill extends A2aSkillHandler {
  handle() {
    return [artifact('done'), complete()];
  }
}

@AgentSkill({ id: 'boom', name: 'Boom', description: 'Fails', tags: ['test'] })
class BoomSkill extends A2aSkillHandler {
  handle(): never {
    throw new Error('skill exploded');
  }
}

const reported: Array<{ error: unknown; invocation?: A2aInvocation }> = [];

function appModule(directDispatch: boolean) {
  @Module({
    imports: [
      A2aModule.forRoot({
        card: { name: 'Pipeline', description: 'Guards and interceptors' },
        directDispatch,
        interceptors: [OperationsInterceptor],
        filters: [QuotaFilter],
        onUnexpectedError: (error, invocation) => reported.push({ error, invocation }),
      }),
    ],
    providers: [WhoAmISkill, BoomSkill, AdminSkill, { provide: APP_GUARD, useClass: AppGuard }],
  })
  class PipelineModule {}
  return PipelineModule;
}

const message = (extra: Record<string, unknown> = {}) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text: 'who?' }],
  ...extra,
});

describe.each([
  ['served from node’s request event', true],
  ['served through Express', false],
])('the Nest pipeline on the HTTP bindings, %s', (_path, directDispatch) => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await startTestApp(appModule(directDispatch)));
  });
  afterAll(() => app.close());
  beforeEach(() => {
    AppGuard.seen.length = 0;
    OperationsInterceptor.seen.length = 0;
    reported.length = 0;
  });

  const rest = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
    fetch(`${url}/a2a/rest${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const rpc = (method: string, params: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method, params }),
    });

  it('a guard sees the operation and the decoded request (proto names, query values) on HTTP+JSON', async () => {
    const res = await rest('GET', '/tasks/t-1?history_length=2');
    expect(res.headers.get('x-guarded-for')).toBe('an address');
    expect(AppGuard.seen).toEqual([
      expect.objectContaining({
        operation: 'GetTask',
        binding: 'HTTP+JSON',
        taskId: 't-1',
        request: { id: 't-1', historyLength: 2 },
        version: '1.0',
        tenant: '',
      }),
    ]);
  });

  it('a guard sees the operation, the skill asked for, the tenant and the headers on JSON-RPC', async () => {
    await rpc(
      'SendMessage',
      { tenant: 'acme', message: message({ metadata: { [SKILL_ID_METADATA_KEY]: 'whoami' } }) },
      { 'x-trace': 't-9' },
    );
    expect(AppGuard.seen).toEqual([
      expect.objectContaining({ operation: 'SendMessage', binding: 'JSONRPC', skillId: 'whoami', tenant: 'acme' }),
    ]);
    expect(AppGuard.seen[0]?.headers['x-trace']).toBe('t-9');
  });

  it('an invalid request is refused before any guard runs', async () => {
    const res = await rest('POST', '/message:send', {}, { message: { role: 'ROLE_USER' } });
    expect(res.status).toBe(400);
    expect(AppGuard.seen).toEqual([]);
  });

  it('the module’s interceptor sees every operation by name', async () => {
    await rest('POST', '/message:send', {}, { message: message() });
    await rpc('ListTasks', {});
    expect(OperationsInterceptor.seen).toEqual(['http:sendMessage', 'http:listTasks']);
  });

  it('setA2aPrincipal: the skill sees the principal, which owns the task; another principal cannot read it', async () => {
    const sent = (await (
      await rest('POST', '/message:send', { 'x-user': 'alice' }, { message: message() })
    ).json()) as any;
    expect(sent.task.artifacts[0].parts[0].data).toEqual({ principal: 'alice', authenticated: true });
    expect((await rest('GET', `/tasks/${sent.task.id}`, { 'x-user': 'alice' })).status).toBe(200);
    expect((await rest('GET', `/tasks/${sent.task.id}`, { 'x-user': 'eve' })).status).toBe(404);
  });

  it('without setA2aPrincipal, Passport’s req.user is the principal, user:<id>', async () => {
    const sent = (await (await rpc('SendMessage', { message: message() }, { 'x-passport-sub': 'bob' })).json()) as any;
    expect(sent.result.task.artifacts[0].parts[0].data).toEqual({ principal: 'user:bob', authenticated: true });
  });

  it('a guard’s ForbiddenException: 403 PERMISSION_DENIED on HTTP+JSON, HTTP 403 with -31403 on JSON-RPC', async () => {
    const viaRest = await rest('GET', '/tasks/t-1', { 'x-deny': '1' });
    expect(viaRest.status).toBe(403);
    expect(await viaRest.json()).toMatchObject({
      error: { code: 403, status: 'PERMISSION_DENIED', message: 'Not for you' },
    });
    const viaRpc = await rpc('GetTask', { id: 't-1' }, { 'x-deny': '1' });
    expect(viaRpc.status).toBe(403);
    expect(await viaRpc.json()).toMatchObject({ id: 9, error: { code: -31403 } });
  });

  it('an unexpected error in the pipeline: INTERNAL in the binding’s shape, and onUnexpectedError sees it with the call', async () => {
    const res = await rest('GET', '/tasks/t-1', { 'x-crash': '1' });
    expect(res.status).toBe(500);
    const body = await res.text();
    expect(JSON.parse(body)).toMatchObject({ error: { code: 500, status: 'INTERNAL' } });
    expect(body).not.toMatch(/kaboom/);
    expect(reported).toEqual([
      { error: new Error('kaboom'), invocation: expect.objectContaining({ operation: 'GetTask', taskId: 't-1' }) },
    ]);
  });

  it('@UseGuards() on a skill class guards the messages routed to that skill only, after routing', async () => {
    AdminOnlyGuard.seen.length = 0;
    const toAdmin = message({ metadata: { [SKILL_ID_METADATA_KEY]: 'admin' } });
    const refused = await rest('POST', '/message:send', { 'x-user': 'alice' }, { message: toAdmin });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { status: 'PERMISSION_DENIED' } });
    const allowed = (await (
      await rest('POST', '/message:send', { 'x-user': 'admin' }, { message: { ...toAdmin, messageId: randomUUID() } })
    ).json()) as any;
    expect(allowed.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(AdminOnlyGuard.seen).toEqual(['AdminSkill.handle SendMessage', 'AdminSkill.handle SendMessage']);
    // The other skills do not run it.
    expect((await rest('POST', '/message:send', { 'x-user': 'alice' }, { message: message() })).status).toBe(200);
    expect(AdminOnlyGuard.seen).toHaveLength(2);
    // Nor is a refused message stored.
    expect(
      ((await (await rest('GET', '/tasks', { 'x-user': 'alice' })).json()) as any).tasks.map(
        (t: any) => t.history?.[0]?.metadata,
      ),
    ).not.toContainEqual({
      [SKILL_ID_METADATA_KEY]: 'admin',
    });
  });

  it('the module’s exception filter answers the errors it catches, on both bindings; protocol errors stay the binding’s', async () => {
    const viaRest = await rest('GET', '/tasks/t-1', { 'x-quota': '1' });
    expect(viaRest.status).toBe(402);
    expect(await viaRest.json()).toEqual({ quota: 'Over quota' });
    const viaRpc = await rpc('GetTask', { id: 't-1' }, { 'x-quota': '1' });
    expect(viaRpc.status).toBe(402);
    expect(reported).toEqual([]);
    expect((await rest('GET', '/tasks/t-1')).status).toBe(404);
  });

  it('a skill’s unexpected error: the task FAILED, and onUnexpectedError sees it', async () => {
    const sent = (await (
      await rest('POST', '/message:send', {}, { message: message({ metadata: { [SKILL_ID_METADATA_KEY]: 'boom' } }) })
    ).json()) as any;
    expect(sent.task.status.state).toBe('TASK_STATE_FAILED');
    expect(reported).toEqual([{ error: new Error('skill exploded'), invocation: undefined }]);
  });
});
