import * as grpc from '@grpc/grpc-js';
import {
  Catch,
  Injectable,
  UnauthorizedException,
  UseGuards,
  type CallHandler,
  type CanActivate,
  type ExecutionContext,
  type NestInterceptor,
  type RpcExceptionFilter,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { finalize, throwError, type Observable } from 'rxjs';
import {
  A2aSkillHandler,
  AgentSkill,
  SKILL_ID_METADATA_KEY,
  a2aInvocationOf,
  complete,
  setA2aPrincipal,
  type A2aPrincipal,
} from '../../../libs/a2a/src/index.js';
import { GrpcJsonClient, reasonOf, type Json } from '../../fixtures/grpc-json.client.js';
import { startGrpcProbeApp, type GrpcProbeApp } from '../../fixtures/grpc-probe.fixture.js';

/**
 * The app's own Nest pipeline on gRPC calls, as on the HTTP bindings: global guards (with the principal they leave on
 * the call), interceptors and exception filters. `connectA2aGrpc` attaches the microservice with
 * `inheritAppConfig: true`; without it, Nest keeps the app's global enhancers off the microservice.
 */

class QuotaExceededError extends Error {}

/** Bearer `alice` is let in (as principal alice), `mallory` is refused, `spender` is over quota, anyone else unknown. */
@Injectable()
class BearerGuard implements CanActivate {
  static readonly seen: unknown[] = [];

  canActivate(context: ExecutionContext): boolean {
    BearerGuard.seen.push(a2aInvocationOf(context));
    const token = bearerOf(context);
    if (token === undefined) throw new UnauthorizedException('A bearer token is required');
    if (token === 'spender') throw new QuotaExceededError('Over quota');
    if (token !== 'alice') return false;
    const principal: A2aPrincipal = { id: 'alice', authenticated: true };
    setA2aPrincipal(context, principal);
    return true;
  }
}

function bearerOf(context: ExecutionContext): string | undefined {
  const header =
    context.getType() === 'rpc'
      ? (context.switchToRpc().getContext<grpc.Metadata>().get('authorization')[0] as string | undefined)
      : context.switchToHttp().getRequest<{ headers: Record<string, string> }>().headers.authorization;
  return header?.replace(/^Bearer /i, '');
}

@Catch(QuotaExceededError)
class QuotaFilter implements RpcExceptionFilter<QuotaExceededError> {
  catch(exception: QuotaExceededError): Observable<never> {
    return throwError(() => ({ code: grpc.status.RESOURCE_EXHAUSTED, message: exception.message }));
  }
}

/** Records each rpc it sees, and when its stream is released. */
@Injectable()
class AuditInterceptor implements NestInterceptor {
  readonly calls: string[] = [];
  readonly released: string[] = [];

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const name = `${context.getType()}:${context.getHandler().name}`;
    this.calls.push(name);
    return next.handle().pipe(finalize(() => this.released.push(name)));
  }
}

const message = (text: string): Json => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] });
const as = (token: string) => ({ authorization: `Bearer ${token}` });

async function failure(call: Promise<unknown>): Promise<grpc.ServiceError> {
  return call.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e as grpc.ServiceError,
  );
}

describe('gRPC binding under the app’s global guards, interceptors and filters', () => {
  let probe: GrpcProbeApp;
  let client: GrpcJsonClient;
  const audit = new AuditInterceptor();

  beforeAll(async () => {
    probe = await startGrpcProbeApp({
      setup: (app) => {
        app.useGlobalGuards(new BearerGuard());
        app.useGlobalInterceptors(audit);
        app.useGlobalFilters(new QuotaFilter());
      },
    });
    client = new GrpcJsonClient(probe.grpcAddress);
  });
  afterAll(async () => {
    client?.close();
    await probe?.app.close();
  });

  it('a guard throwing UnauthorizedException: UNAUTHENTICATED, with ErrorInfo', async () => {
    const error = await failure(client.unary('GetTask', { id: 'any' }));
    expect(error.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(error.details).toBe('A bearer token is required');
    expect(reasonOf(error)).toBe('UNAUTHENTICATED');
  });

  it('a guard returning false: PERMISSION_DENIED, with ErrorInfo', async () => {
    const error = await failure(client.unary('SendMessage', { message: message('echo hi') }, as('mallory')));
    expect(error.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(reasonOf(error)).toBe('PERMISSION_DENIED');
  });

  it('guards the streaming rpcs too, before any event', async () => {
    const error = await failure(client.collect('SendStreamingMessage', { message: message('echo hi') }));
    expect(error.code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it('a guard sees the decoded, validated request and its operation', async () => {
    BearerGuard.seen.length = 0;
    await client.unary('GetTask', { id: 'some-task', historyLength: 2 }, as('alice')).catch(() => undefined);
    expect(BearerGuard.seen).toEqual([
      expect.objectContaining({
        operation: 'GetTask',
        binding: 'GRPC',
        taskId: 'some-task',
        request: { id: 'some-task', historyLength: 2 },
      }),
    ]);
  });

  it('an invalid request is refused before any guard runs, as on HTTP', async () => {
    BearerGuard.seen.length = 0;
    const error = await failure(client.unary('GetTask', { id: '' }));
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(BearerGuard.seen).toEqual([]);
  });

  it('the principal a guard sets with setA2aPrincipal reaches the skill, and owns the task', async () => {
    const { task } = (await client.unary('SendMessage', { message: message('context') }, as('alice'))) as {
      task: Json;
    };
    expect((task.artifacts as Json[])[0].parts).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ principal: 'alice', binding: 'GRPC' }) }),
    ]);
  });

  it('the app’s exception filter answers for its own errors', async () => {
    const error = await failure(client.unary('GetTask', { id: 'any' }, as('spender')));
    expect(error.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(error.details).toBe('Over quota');
  });

  it('the app’s interceptor sees gRPC calls, and the release of a stream the client cancels', async () => {
    await client.unary('SendMessage', { message: message('echo audited') }, as('alice'));
    expect(audit.calls).toContain('rpc:sendMessage');

    const stream = client.stream('SendStreamingMessage', { message: message('slow 300') }, as('alice'));
    stream.on('error', () => undefined);
    await new Promise((resolve) => stream.once('data', resolve));
    stream.cancel();
    for (let i = 0; i < 100 && !audit.released.includes('rpc:sendStreamingMessage'); i++) await sleep(20);
    expect(audit.released).toContain('rpc:sendStreamingMessage');
  });
});

describe('gRPC binding with a guard registered as APP_GUARD', () => {
  let probe: GrpcProbeApp;
  let client: GrpcJsonClient;

  beforeAll(async () => {
    // APP_GUARD providers join the app's config, which connectA2aGrpc passes on (without it they stay off gRPC too).
    probe = await startGrpcProbeApp({ providers: [{ provide: APP_GUARD, useClass: BearerGuard }] });
    client = new GrpcJsonClient(probe.grpcAddress);
  });
  afterAll(async () => {
    client?.close();
    await probe?.app.close();
  });

  it('applies it to gRPC calls', async () => {
    expect((await failure(client.unary('GetTask', { id: 'any' }))).code).toBe(grpc.status.UNAUTHENTICATED);
    expect(await client.unary('SendMessage', { message: message('echo in') }, as('alice'))).toMatchObject({
      task: { status: { state: 'TASK_STATE_COMPLETED' } },
    });
  });
});

describe('gRPC binding connected without inheritAppConfig', () => {
  let probe: GrpcProbeApp;
  let client: GrpcJsonClient;

  beforeAll(async () => {
    probe = await startGrpcProbeApp({
      setup: (app) => app.useGlobalGuards(new BearerGuard()),
      inheritAppConfig: false,
    });
    client = new GrpcJsonClient(probe.grpcAddress);
  });
  afterAll(async () => {
    client?.close();
    await probe?.app.close();
  });

  it('leaves app.useGlobalGuards() guards off gRPC calls (Nest’s hybrid-app default): why connectA2aGrpc inherits', async () => {
    expect(await client.unary('SendMessage', { message: message('echo unguarded') })).toMatchObject({
      task: { status: { state: 'TASK_STATE_COMPLETED' } },
    });
    const http = await fetch(`${probe.httpUrl}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'any' } }),
    });
    expect(JSON.stringify(await http.json())).toMatch(/-31401|Unauthenticated|bearer/i);
  });
});

/** Given to the module: no one may cancel. */
@Injectable()
class NoCancelGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return a2aInvocationOf(context)?.operation !== 'CancelTask';
  }
}

/** Refuses ListTasks with the app's own quota error, which only the module's filter knows how to answer. */
@Injectable()
class QuotaOnListGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (a2aInvocationOf(context)?.operation === 'ListTasks') throw new QuotaExceededError('No listing today');
    return true;
  }
}

describe('gRPC binding under the module’s own guards and filters (options guards, filters)', () => {
  let probe: GrpcProbeApp;
  let client: GrpcJsonClient;

  beforeAll(async () => {
    probe = await startGrpcProbeApp({ a2a: { guards: [NoCancelGuard, QuotaOnListGuard], filters: [QuotaFilter] } });
    client = new GrpcJsonClient(probe.grpcAddress);
  });
  afterAll(async () => {
    client?.close();
    await probe?.app.close();
  });

  it('the module’s filter answers the errors it catches; the binding still answers protocol errors', async () => {
    const error = await failure(client.unary('ListTasks', {}));
    expect(error.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(error.details).toBe('No listing today');
    expect((await failure(client.unary('GetTask', { id: 'any' }))).code).toBe(grpc.status.NOT_FOUND);
  });

  it('applies them to gRPC calls as to the HTTP bindings', async () => {
    expect((await failure(client.unary('CancelTask', { id: 'any' }))).code).toBe(grpc.status.PERMISSION_DENIED);
    expect((await failure(client.unary('GetTask', { id: 'any' }))).code).toBe(grpc.status.NOT_FOUND);
    const viaHttp = await fetch(`${probe.httpUrl}/a2a/rest/tasks/any:cancel`, {
      method: 'POST',
      headers: { 'a2a-version': '1.0', 'content-type': 'application/json' },
    });
    expect(viaHttp.status).toBe(403);
  });
});

/** On the vault skill's class: only alice. */
@Injectable()
class AliceOnlyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return context.getType() === 'rpc' && a2aInvocationOf(context)?.principal?.id === 'alice';
  }
}

@AgentSkill({ id: 'vault', name: 'Vault', description: 'For alice only', tags: ['test'] })
@UseGuards(AliceOnlyGuard)
class VaultSkill extends A2aSkillHandler {
  handle() {
    return [complete('opened')];
  }
}

/** Takes the caller's word for who it is (x-user metadata). */
@Injectable()
class MetadataUserGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const user = context.switchToRpc().getContext<grpc.Metadata>().get('x-user')[0];
    if (typeof user === 'string') setA2aPrincipal(context, { id: user, authenticated: true });
    return true;
  }
}

describe('gRPC binding: @UseGuards() on a skill class', () => {
  let probe: GrpcProbeApp;
  let client: GrpcJsonClient;

  beforeAll(async () => {
    probe = await startGrpcProbeApp({
      providers: [VaultSkill, AliceOnlyGuard],
      setup: (app) => app.useGlobalGuards(new MetadataUserGuard()),
    });
    client = new GrpcJsonClient(probe.grpcAddress);
  });
  afterAll(async () => {
    client?.close();
    await probe?.app.close();
  });

  const toVault = () => ({ message: { ...message('open'), metadata: { [SKILL_ID_METADATA_KEY]: 'vault' } } });

  it('refuses the messages routed to that skill for others, and only those', async () => {
    const refused = await failure(client.unary('SendMessage', toVault(), { 'x-user': 'bob' }));
    expect(refused.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(reasonOf(refused)).toBe('PERMISSION_DENIED');
    expect(await client.unary('SendMessage', toVault(), { 'x-user': 'alice' })).toMatchObject({
      task: { status: { state: 'TASK_STATE_COMPLETED' } },
    });
    expect(await client.unary('SendMessage', { message: message('echo hi') }, { 'x-user': 'bob' })).toMatchObject({
      task: { status: { state: 'TASK_STATE_COMPLETED' } },
    });
  });
});
