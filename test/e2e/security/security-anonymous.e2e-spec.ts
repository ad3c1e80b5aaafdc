import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { A2aMessages } from '../../../libs/a2a/src/a2a.messages.js';
import type { A2aSecurityOptions } from '../../../libs/a2a/src/index.js';
import { WebhookReceiver } from '../../fixtures/webhook-receiver.js';
import { GrpcJsonClient, type Json } from '../../fixtures/grpc-json.client.js';
import { startGrpcProbeApp, type GrpcProbeApp } from '../../fixtures/grpc-probe.fixture.js';
import {
  BINDINGS,
  call,
  type Binding,
  type CallOutcome,
  type Operation,
  type SecurityTarget,
} from '../../fixtures/security-calls.js';

/**
 * Callers without credentials (option `security.anonymousCallers`) on all three bindings: isolated by default (a task
 * id is the capability; ListTasks and push configs refused), shared on request (listing allowed), and never shown a
 * stored push secret. A Passport user named `anonymous` is not the anonymous owner.
 */

const SECRET = 'secret-token-of-a';
const CREDENTIALS = 'credentials-of-a';

/** Passport's way, on both transports: a user on the request (HTTP) or on the call (gRPC), from the `x-user` header. */
@Injectable()
class PassportLikeGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const rpc = context.getType() === 'rpc';
    const carrier = (rpc ? context.getArgByIndex(2) : context.switchToHttp().getRequest()) as { user?: unknown };
    const header: unknown = rpc
      ? context.switchToRpc().getContext<{ get(key: string): unknown[] }>().get('x-user')[0]
      : (carrier as { headers: Record<string, unknown> }).headers['x-user'];
    if (typeof header === 'string') carrier.user = { id: header };
    return true;
  }
}

let receiver: WebhookReceiver;
beforeAll(async () => (receiver = await WebhookReceiver.start()));
afterAll(() => receiver.stop());

async function start(security: A2aSecurityOptions): Promise<{ probe: GrpcProbeApp; target: SecurityTarget }> {
  const probe = await startGrpcProbeApp({
    a2a: { security, push: { allowedCidrs: ['127.0.0.1/32'], allowedPorts: 'any' }, guards: [PassportLikeGuard] },
    providers: [PassportLikeGuard],
  });
  return { probe, target: { httpUrl: probe.httpUrl, grpc: new GrpcJsonClient(probe.grpcAddress) } };
}

const send = (text: string, configuration?: Json): Json => ({
  message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
  ...(configuration ? { configuration } : {}),
});
const pushConfig = (): Json => ({
  url: receiver.url(),
  token: SECRET,
  authentication: { scheme: 'Bearer', credentials: CREDENTIALS },
});

async function createTask(
  target: SecurityTarget,
  binding: Binding,
  text: string,
  headers: Record<string, string> = {},
  configuration?: Json,
): Promise<string> {
  const outcome = await call(target, binding, 'SendMessage', send(text, configuration), headers);
  expect(outcome).toMatchObject({ status: 'OK' });
  return (outcome.result as { task: { id: string } }).task.id;
}

function expectRefusedAnonymous(outcome: CallOutcome, binding: Binding, operation: Operation | 'SendMessage'): void {
  expect(outcome.status).toBe('PERMISSION_DENIED');
  if (binding !== 'GRPC') expect(outcome.httpStatus).toBe(403);
  if (binding === 'JSONRPC') expect(outcome.jsonRpcCode).toBe(-31403);
  if (binding !== 'GRPC')
    expect(outcome.errorBody).toContain(JSON.stringify(A2aMessages.anonymousCallerRefused(operation)).slice(1, -1));
}

const taskIdsOf = (outcome: CallOutcome) =>
  ((outcome.result as { tasks: { id: string }[] }).tasks ?? []).map((task) => task.id);

describe('isolated anonymous callers (the default)', () => {
  let probe: GrpcProbeApp;
  let target: SecurityTarget;
  beforeAll(async () => ({ probe, target } = await start({ allowAnonymous: true })));
  afterAll(async () => {
    target?.grpc.close();
    await probe?.app.close();
  });

  describe.each(BINDINGS)('%s', (binding) => {
    it('refuses ListTasks, with or without a contextId, and an inline push config', async () => {
      const created = await call(target, binding, 'SendMessage', send('echo a'));
      const contextId = (created.result as { task: { contextId: string } }).task.contextId;
      expectRefusedAnonymous(await call(target, binding, 'ListTasks', { pageSize: 3 }), binding, 'ListTasks');
      expectRefusedAnonymous(await call(target, binding, 'ListTasks', { contextId }), binding, 'ListTasks');
      expectRefusedAnonymous(
        await call(target, binding, 'SendMessage', send('echo a', { taskPushNotificationConfig: pushConfig() })),
        binding,
        'SendMessage',
      );
    });

    it('refuses every push config operation, even on the task the caller made', async () => {
      const taskId = await createTask(target, binding, 'echo a');
      const id = randomUUID();
      expectRefusedAnonymous(
        await call(target, binding, 'CreateTaskPushNotificationConfig', { taskId, ...pushConfig() }),
        binding,
        'CreateTaskPushNotificationConfig',
      );
      expectRefusedAnonymous(
        await call(target, binding, 'ListTaskPushNotificationConfigs', { taskId }),
        binding,
        'ListTaskPushNotificationConfigs',
      );
      expectRefusedAnonymous(
        await call(target, binding, 'GetTaskPushNotificationConfig', { taskId, id }),
        binding,
        'GetTaskPushNotificationConfig',
      );
      expectRefusedAnonymous(
        await call(target, binding, 'DeleteTaskPushNotificationConfig', { taskId, id }),
        binding,
        'DeleteTaskPushNotificationConfig',
      );
    });

    it('serves GetTask, SubscribeToTask and CancelTask to whoever holds the task id', async () => {
      const done = await createTask(target, binding, 'echo a');
      expect(await call(target, binding, 'GetTask', { id: done })).toMatchObject({
        status: 'OK',
        result: { id: done, status: { state: 'TASK_STATE_COMPLETED' } },
      });
      const running = await createTask(target, binding, 'slow 300', {}, { returnImmediately: true });
      const subscribed = await call(target, binding, 'SubscribeToTask', { id: running });
      expect(subscribed.status).toBe('OK');
      expect(JSON.stringify(subscribed.result)).toContain('TASK_STATE_COMPLETED');
      const open = await createTask(target, binding, 'slow 60000', {}, { returnImmediately: true });
      expect(await call(target, binding, 'CancelTask', { id: open })).toMatchObject({
        status: 'OK',
        result: { id: open, status: { state: 'TASK_STATE_CANCELED' } },
      });
    });

    it('keeps anonymous tasks from a Passport user named "anonymous", and his from anonymous callers', async () => {
      const anonymousTask = await createTask(target, binding, 'echo a');
      const user = { 'x-user': 'anonymous' };
      const usersTask = await createTask(target, binding, 'echo u', user);
      const listed = await call(target, binding, 'ListTasks', { pageSize: 100 }, user);
      expect(listed.status).toBe('OK');
      expect(taskIdsOf(listed)).toContain(usersTask);
      expect(taskIdsOf(listed)).not.toContain(anonymousTask);
      expect((await call(target, binding, 'GetTask', { id: anonymousTask }, user)).status).toBe('NOT_FOUND');
      expect((await call(target, binding, 'GetTask', { id: usersTask })).status).toBe('NOT_FOUND');
    });

    it('gives the Passport user the principal user:<id>', async () => {
      const outcome = await call(target, binding, 'SendMessage', send('context'), { 'x-user': 'anonymous' });
      expect(JSON.stringify(outcome.result)).toContain('"principal":"user:anonymous"');
    });
  });
});

describe("anonymousCallers: 'shared'", () => {
  let probe: GrpcProbeApp;
  let target: SecurityTarget;
  beforeAll(async () => ({ probe, target } = await start({ allowAnonymous: true, anonymousCallers: 'shared' })));
  afterAll(async () => {
    target?.grpc.close();
    await probe?.app.close();
  });

  describe.each(BINDINGS)('%s', (binding) => {
    it("lists every anonymous caller's tasks and configs, with no stored secret in the answers", async () => {
      const taskId = await createTask(target, binding, 'echo a', {}, { taskPushNotificationConfig: pushConfig() });
      const listed = await call(target, binding, 'ListTasks', { pageSize: 100 });
      expect(listed.status).toBe('OK');
      expect(taskIdsOf(listed)).toContain(taskId);

      const configs = await call(target, binding, 'ListTaskPushNotificationConfigs', { taskId });
      expect(configs.status).toBe('OK');
      const [config] = (configs.result as { configs: Json[] }).configs;
      expect(config).toMatchObject({ taskId, url: receiver.url(), authentication: { scheme: 'Bearer' } });
      const read = await call(target, binding, 'GetTaskPushNotificationConfig', { taskId, id: config.id as string });
      expect(read).toMatchObject({ status: 'OK', result: { id: config.id, url: receiver.url() } });
      for (const answer of [configs, read]) {
        expect(JSON.stringify(answer.result)).not.toContain(SECRET);
        expect(JSON.stringify(answer.result)).not.toContain(CREDENTIALS);
      }
      expect(
        await call(target, binding, 'DeleteTaskPushNotificationConfig', { taskId, id: config.id as string }),
      ).toMatchObject({ status: 'OK' });
    });

    it('shows the secrets to an authenticated owner', async () => {
      const user = { 'x-user': 'alice' };
      const taskId = await createTask(target, binding, 'echo a', user, { taskPushNotificationConfig: pushConfig() });
      const configs = await call(target, binding, 'ListTaskPushNotificationConfigs', { taskId }, user);
      expect(configs).toMatchObject({
        status: 'OK',
        result: { configs: [{ token: SECRET, authentication: { scheme: 'Bearer', credentials: CREDENTIALS } }] },
      });
    });
  });
});
