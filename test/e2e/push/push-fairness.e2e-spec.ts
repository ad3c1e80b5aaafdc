import { Logger, Module, type DynamicModule, type INestApplication, type LoggerService } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  A2aModule,
  A2aPushDispatcher,
  A2aSkillHandler,
  AgentSkill,
  apiKeyScheme,
  requireInput,
  type A2aPushOptions,
  type SkillEvent,
  type StreamResponse,
} from '../../../libs/a2a/src/index.js';
import { PushMessages } from '../../../libs/a2a/src/push/push.messages.js';
import { WebhookReceiver } from '../../fixtures/webhook-receiver.js';
import { WebhookTrap } from '../../fixtures/webhook-trap.js';
import { freePort } from '../../fixtures/grpc-json.client.js';
import { startTestApp } from '../../fixtures/test-app.js';

/**
 * Push delivery fairness, bounded and on loopback only: 80 webhooks of one owner's tasks (more than the replica's 64
 * slots) point at a tarpit (a listener that accepts and never answers), with the default caps and timeouts (each
 * attempt would hold its slot for 15 s); another owner's webhook on a healthy receiver still gets its notification at
 * once. And a destination that cannot be reached is skipped a while, its deliveries kept, not spent.
 */

@AgentSkill({ id: 'ask', name: 'Ask', description: 'Asks again at every message', tags: ['test'], default: true })
class AskSkill extends A2aSkillHandler {
  async *handle(): AsyncIterable<SkillEvent> {
    yield requireInput('And then?');
  }
}

const KEYS = { flooder: 'key-f', bystander: 'key-b' } as const;

function pushModule(push: A2aPushOptions): DynamicModule {
  @Module({})
  class PushFairnessModule {}
  return {
    module: PushFairnessModule,
    imports: [
      A2aModule.forRoot({
        card: { name: 'Push fairness', description: 'Push deliveries under a tarpit' },
        security: {
          schemes: { apiKey: apiKeyScheme({ in: 'header', name: 'X-API-Key', keys: KEYS }) },
          requirements: [{ apiKey: [] }],
        },
        push: { allowedCidrs: ['127.0.0.1/32'], allowedPorts: 'any', pollIntervalMs: 50, ...push },
      }),
    ],
    providers: [AskSkill],
  };
}

let app: INestApplication;
let url: string;
let trap: WebhookTrap;
let receiver: WebhookReceiver;

beforeAll(async () => {
  trap = await WebhookTrap.start();
  receiver = await WebhookReceiver.start();
  ({ app, url } = await startTestApp(pushModule({})));
});
afterAll(async () => {
  // The tarpit lets go first: the deliveries stuck on it fail at once, and the app's shutdown need not wait for them.
  await trap?.stop();
  await app?.close();
  await receiver?.stop();
});

async function rpc<T>(who: keyof typeof KEYS, method: string, params: object, at = url): Promise<T> {
  const res = await fetch(`${at}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': KEYS[who] },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const answer = (await res.json()) as { result?: T; error?: unknown };
  if (!answer.result) throw new Error(`${method} failed: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

const message = (taskId?: string) => ({
  message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go on' }], ...(taskId ? { taskId } : {}) },
});

/** A task of `who`, INPUT_REQUIRED, with `hooks` webhooks at `webhookUrl`. */
async function taskWithHooks(who: keyof typeof KEYS, hooks: number, webhookUrl: string, at = url): Promise<string> {
  const { task } = await rpc<{ task: { id: string } }>(who, 'SendMessage', message(), at);
  for (let i = 0; i < hooks; i++)
    await rpc(who, 'CreateTaskPushNotificationConfig', { taskId: task.id, url: webhookUrl }, at);
  return task.id;
}

/** Polls `check` until it holds; fails with `what` after `ms`. */
async function eventually(what: string, check: () => boolean, ms: number): Promise<void> {
  for (const deadline = Date.now() + ms; !check(); await sleep(10)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

const hasEventOf = (hooks: WebhookReceiver, taskId: string) =>
  hooks.received.some((request) => {
    const event = JSON.parse(request.body) as StreamResponse;
    return 'statusUpdate' in event && event.statusUpdate.taskId === taskId;
  });

it("a tarpit holding 80 of one owner's webhooks does not stall another owner's notifications", async () => {
  const flooded = await Promise.all(
    Array.from({ length: 8 }, () => taskWithHooks('flooder', 10, `http://127.0.0.1:${trap.port}/hook`)),
  );
  const bystander = await taskWithHooks('bystander', 1, receiver.url());
  // Each follow-up's events go to each of its task's webhooks: 80 deliveries into the tarpit.
  for (const taskId of flooded) await rpc('flooder', 'SendMessage', message(taskId));
  await eventually('a delivery into the tarpit', () => trap.connections > 0, 5000);
  await rpc('bystander', 'SendMessage', message(bystander));
  await eventually("the bystander's notification, within 2 s", () => hasEventOf(receiver, bystander), 2000);
});

it('skips a destination that cannot be reached, keeps its deliveries in the outbox, and sends them once it answers', async () => {
  const logged: string[] = [];
  const capture: LoggerService = {
    log: (line: unknown) => logged.push(String(line)),
    warn: (line: unknown) => logged.push(String(line)),
    error() {},
  };
  Logger.overrideLogger(capture);
  const port = await freePort();
  // Two attempts in a row that find nothing listening open the circuit; a third would be the last.
  const breaker = { failures: 2, openMs: 1000 };
  const started = await startTestApp(
    pushModule({ maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20, pollIntervalMs: 20, circuitBreaker: breaker }),
  );
  let late: WebhookReceiver | undefined;
  try {
    Logger.overrideLogger(capture);
    const taskId = await taskWithHooks('bystander', 1, `http://127.0.0.1:${port}/hook`, started.url);
    await rpc('bystander', 'SendMessage', message(taskId), started.url);
    const host = `127.0.0.1:${port}`;
    await eventually(
      'the circuit to open',
      () => logged.includes(PushMessages.circuitOpened(host, breaker.failures, breaker.openMs)),
      5000,
    );
    late = await WebhookReceiver.start(undefined, port);
    await eventually('the kept notification', () => hasEventOf(late!, taskId), 5000);
    expect(await started.app.get(A2aPushDispatcher).deadLetters({ taskId })).toEqual([]);
    // The circuit closes once the delivery's answer is read, which may come a moment after the receiver saw it.
    await eventually('the circuit to close', () => logged.includes(PushMessages.circuitClosed(host)), 5000);
    expect(logged.filter((line) => line === PushMessages.circuitClosed(host))).toHaveLength(1);
    expect(logged.filter((line) => line.startsWith('Push deliveries to') && line.includes('paused'))).toHaveLength(1);
  } finally {
    await started.app.close();
    await late?.stop();
    Logger.overrideLogger(false);
  }
});
