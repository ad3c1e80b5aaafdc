import { Module, type INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { A2aModule, A2aSkillHandler, AgentSkill, apiKeyScheme, requireInput, type SkillEvent, type StreamResponse } from '../../libs/a2a/src/index.js';
import { WebhookReceiver } from '../fixtures/webhook-receiver.js';
import { WebhookTrap } from '../fixtures/webhook-trap.js';
import { startTestApp } from './test-app.js';

/**
 * Push delivery fairness, bounded and on loopback only: 40 webhooks of one owner's tasks point at a tarpit (a
 * listener that accepts and never answers), with the default caps and timeouts (each attempt would hold its slot for
 * 15 s); another owner's webhook on a healthy receiver still gets its notification at once.
 */

@AgentSkill({ id: 'ask', name: 'Ask', description: 'Asks again at every message', tags: ['test'], default: true })
class AskSkill extends A2aSkillHandler {
  async *handle(): AsyncIterable<SkillEvent> {
    yield requireInput('And then?');
  }
}

const KEYS = { flooder: 'key-f', bystander: 'key-b' } as const;

@Module({
  imports: [
    A2aModule.forRoot({
      card: { name: 'Push fairness', description: 'Push deliveries under a tarpit' },
      security: { schemes: { apiKey: apiKeyScheme({ in: 'header', name: 'X-API-Key', keys: KEYS }) }, requirements: [{ apiKey: [] }] },
      push: { allowedCidrs: ['127.0.0.1/32'], pollIntervalMs: 50 },
    }),
  ],
  providers: [AskSkill],
})
class PushFairnessModule {}

let app: INestApplication;
let url: string;
let trap: WebhookTrap;
let receiver: WebhookReceiver;

beforeAll(async () => {
  trap = await WebhookTrap.start();
  receiver = await WebhookReceiver.start();
  ({ app, url } = await startTestApp(PushFairnessModule));
});
afterAll(async () => {
  // The tarpit lets go first: the deliveries stuck on it fail at once, and the app's shutdown need not wait for them.
  await trap?.stop();
  await app?.close();
  await receiver?.stop();
});

async function rpc<T>(who: keyof typeof KEYS, method: string, params: object): Promise<T> {
  const res = await fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': KEYS[who] },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const answer = (await res.json()) as { result?: T; error?: unknown };
  if (!answer.result) throw new Error(`${method} failed: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

const message = (taskId?: string) => ({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go on' }], ...(taskId ? { taskId } : {}) } });

/** A task of `who`, INPUT_REQUIRED, with `hooks` webhooks at `webhookUrl`. */
async function taskWithHooks(who: keyof typeof KEYS, hooks: number, webhookUrl: string): Promise<string> {
  const { task } = await rpc<{ task: { id: string } }>(who, 'SendMessage', message());
  for (let i = 0; i < hooks; i++) await rpc(who, 'CreateTaskPushNotificationConfig', { taskId: task.id, url: webhookUrl });
  return task.id;
}

it("a tarpit holding 40 of one owner's webhooks does not stall another owner's notifications", async () => {
  const flooded = await Promise.all(Array.from({ length: 4 }, () => taskWithHooks('flooder', 10, `http://127.0.0.1:${trap.port}/hook`)));
  const bystander = await taskWithHooks('bystander', 1, receiver.url());
  // Each follow-up's events go to each of its task's webhooks: 40 deliveries into the tarpit.
  for (const taskId of flooded) await rpc('flooder', 'SendMessage', message(taskId));
  for (const deadline = Date.now() + 5000; trap.connections === 0; await sleep(10)) {
    if (Date.now() > deadline) throw new Error('no delivery reached the tarpit');
  }
  await rpc('bystander', 'SendMessage', message(bystander));
  const deadline = Date.now() + 2000;
  const arrived = () =>
    receiver.received.some((request) => {
      const event = JSON.parse(request.body) as StreamResponse;
      return 'statusUpdate' in event && event.statusUpdate.taskId === bystander;
    });
  while (!arrived()) {
    if (Date.now() > deadline) throw new Error(`the bystander's notification did not arrive within 2 s (tarpit connections: ${trap.connections})`);
    await sleep(10);
  }
});
