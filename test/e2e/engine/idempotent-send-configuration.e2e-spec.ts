import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { postgresTaskStore } from '../../../libs/a2a/src/postgres.js';
import type { TaskStore } from '../../../libs/a2a/src/store.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { GrpcJsonClient, type Json } from '../../fixtures/grpc-json.client.js';
import { dropSchema, postgresReachable, TEST_POSTGRES_URL, testSchemaName } from '../../fixtures/postgres.fixture.js';
import { BINDINGS, call, type SecurityTarget } from '../../fixtures/security-calls.js';
import { WebhookReceiver } from '../../fixtures/webhook-receiver.js';

/**
 * A retried SendMessage (same messageId, same message) gets the first send's answer, so its configuration must not
 * ask for another outcome: another webhook, another returnImmediately or other accepted output modes is InvalidParams
 * naming the field, on every binding and with each store; the same configuration (historyLength aside) still gets
 * the first answer.
 */

const reachable = await postgresReachable('the conflicting-configuration retry e2e on PostgreSQL');
const schema = testSchemaName();
let pool: pg.Pool | undefined;
afterAll(async () => {
  if (!pool) return;
  await dropSchema(pool, schema);
  await pool.end();
});

const STORES: ReadonlyArray<readonly [string, () => Promise<TaskStore | undefined>]> = [
  ['in memory', async () => undefined],
  ...(reachable
    ? ([
        [
          'PostgreSQL',
          async () => {
            pool ??= new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 1 });
            return postgresTaskStore({ connectionString: TEST_POSTGRES_URL, schema, migrate: true });
          },
        ],
      ] as const)
    : []),
];

const message = (messageId: string, text: string): Json => ({ messageId, role: 'ROLE_USER', parts: [{ text }] });
const taskOf = (result: unknown) => (result as { task: { id: string; status: { state: string } } }).task;

describe.each(STORES)('with the task store %s', (_name, makeStore) => {
  let agent: RunningAgent;
  let target: SecurityTarget;
  let webhook: WebhookReceiver;
  const hook = (path: string) => ({ url: webhook.url(path), token: 'a-token' });

  beforeAll(async () => {
    webhook = await WebhookReceiver.start();
    agent = await startConformanceAgent({ withGrpc: true, taskStore: await makeStore(), push: { allow: '127.0.0.1' } });
    target = { httpUrl: agent.url, grpc: new GrpcJsonClient(agent.grpcAddress!), paths: { jsonRpc: '/', rest: '' } };
  });
  afterAll(async () => {
    target?.grpc.close();
    await agent?.close();
    await webhook?.stop();
  });

  describe.each(BINDINGS)('%s', (binding) => {
    const send = (messageId: string, configuration: Json) =>
      call(target, binding, 'SendMessage', { message: message(messageId, 'echo once'), configuration });

    it.each([
      [
        'returnImmediately',
        { acceptedOutputModes: ['text/plain'] },
        { acceptedOutputModes: ['text/plain'], returnImmediately: true },
      ],
      ['acceptedOutputModes', { acceptedOutputModes: ['text/plain'] }, { acceptedOutputModes: ['application/json'] }],
      [
        'taskPushNotificationConfig',
        {},
        { taskPushNotificationConfig: { url: 'https://hooks.example.com/elsewhere' } },
      ],
    ])('refuses a retry with another %s with InvalidParams naming it', async (field, first, retry) => {
      const id = randomUUID();
      const answer = await send(id, first);
      expect(answer.status).toBe('OK');
      const refused = await send(id, retry);
      expect(refused.status).toBe('INVALID_ARGUMENT');
      if (binding === 'JSONRPC') expect(refused.jsonRpcCode).toBe(-32602);
      if (binding === 'HTTP+JSON') expect(refused.httpStatus).toBe(400);
      if (binding !== 'GRPC') expect(refused.errorBody).toContain(`configuration.${field}`);
      // The first send's configuration still gets its answer.
      const again = await send(id, first);
      expect(taskOf(again.result).id).toBe(taskOf(answer.result).id);
    });

    it('refuses a retry whose inline webhook has another token, and one that drops the webhook', async () => {
      const id = randomUUID();
      const first = await send(id, { taskPushNotificationConfig: hook('/a') });
      expect(first.status).toBe('OK');
      const otherToken = await send(id, { taskPushNotificationConfig: { ...hook('/a'), token: 'another' } });
      expect(otherToken.status).toBe('INVALID_ARGUMENT');
      expect((await send(id, {})).status).toBe('INVALID_ARGUMENT');
      const same = await send(id, { taskPushNotificationConfig: hook('/a') });
      expect(same.status).toBe('OK');
      expect(taskOf(same.result).id).toBe(taskOf(first.result).id);
    });

    it('answers an identical retry, or one asking for another historyLength, with the first task', async () => {
      const id = randomUUID();
      const configuration = { acceptedOutputModes: ['text/plain'], historyLength: 5 };
      const first = taskOf((await send(id, configuration)).result);
      expect(first.status.state).toBe('TASK_STATE_COMPLETED');
      const again = await send(id, { ...configuration, historyLength: 1 });
      expect(again.status).toBe('OK');
      expect(taskOf(again.result).id).toBe(first.id);
    });

    it('answers a retry of a send answered by a message, with the same configuration, with that message', async () => {
      const id = randomUUID();
      const ask = (configuration: Json) =>
        call(target, binding, 'SendMessage', { message: message(id, 'message hi'), configuration });
      const first = await ask({ acceptedOutputModes: ['text/plain'] });
      const reply = (first.result as { message: { messageId: string } }).message;
      const again = await ask({ acceptedOutputModes: ['text/plain'] });
      expect((again.result as { message: { messageId: string } }).message.messageId).toBe(reply.messageId);
      expect((await ask({ returnImmediately: true, acceptedOutputModes: ['text/plain'] })).status).toBe(
        'INVALID_ARGUMENT',
      );
    });
  });
});
