import { jest } from '@jest/globals';
import { A2aProtocolError, A2aTransportError, type AgentCard, type Task } from '../../../libs/a2a/src/client.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { deadPort, startCardHost, type CardHost } from './fixtures/card-host.js';
import { CLIENT_BINDINGS, clientFor } from './fixtures/client-targets.js';
import { startFlakyGrpcProxy, type FlakyGrpcProxy } from './fixtures/flaky-grpc.proxy.js';
import { startFlakyHttpProxy, type FlakyHttpProxy } from './fixtures/flaky-http.proxy.js';
import { startSdkAgent, type RunningSdkAgent } from './fixtures/sdk-agent.server.js';

/**
 * Transport fallback, retries with the same messageId, 503 / UNAVAILABLE retries and timeouts, against our agent and
 * an @a2a-js/sdk one on each binding, through proxies that misbehave on demand.
 */
const SERVERS = ['nestjs-a2a', '@a2a-js/sdk'] as const;

let ours: RunningAgent;
let sdk: RunningSdkAgent;
let cards: CardHost;
let silence: { mockRestore(): void };
const origins = () => ({
  'nestjs-a2a': { url: ours.url, grpc: ours.grpcAddress! },
  '@a2a-js/sdk': { url: sdk.url, grpc: sdk.grpcAddress },
});

beforeAll(async () => {
  // The SDK server logs every error it answers with.
  silence = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  [ours, sdk, cards] = await Promise.all([
    startConformanceAgent({ withGrpc: true, push: false }),
    startSdkAgent(),
    startCardHost(),
  ]);
});
afterAll(async () => {
  await Promise.all([ours?.close(), sdk?.close(), cards?.close()]);
  silence?.mockRestore();
});

async function cardOf(origin: string): Promise<AgentCard> {
  return (await (await fetch(`${origin}/.well-known/agent-card.json`)).json()) as AgentCard;
}

describe.each(SERVERS)('against %s', (server) => {
  describe('transport fallback', () => {
    // Each binding down in turn, listed first, with one other binding of the agent after it.
    const cases = [
      ['JSONRPC', 'HTTP+JSON'],
      ['HTTP+JSON', 'GRPC'],
      ['GRPC', 'JSONRPC'],
    ] as const;

    it.each(cases)(
      '%s refuses connections: the call goes to %s, and the next call straight there',
      async (down, up) => {
        const card = await cardOf(origins()[server].url);
        const port = await deadPort();
        const dead = {
          url: down === 'GRPC' ? `127.0.0.1:${port}` : `http://127.0.0.1:${port}/a2a`,
          protocolBinding: down,
          protocolVersion: '1.0',
        };
        const alive = card.supportedInterfaces.find((entry) => entry.protocolBinding === up)!;
        cards.serve({ ...card, supportedInterfaces: [dead, alive] });
        const client = clientFor(cards.url, CLIENT_BINDINGS, { retry: false });
        try {
          const task = (await client.send('echo fell back')) as Task;
          expect(task.status.state).toBe('TASK_STATE_COMPLETED');
          const started = Date.now();
          expect((await client.getTask(task.id)).id).toBe(task.id);
          expect(Date.now() - started).toBeLessThan(1000);
        } finally {
          await client.close();
        }
      },
    );

    it('every interface down: a Network error that says the connection never opened', async () => {
      const card = await cardOf(origins()[server].url);
      const [a, b] = [await deadPort(), await deadPort()];
      cards.serve({
        ...card,
        supportedInterfaces: [
          { url: `http://127.0.0.1:${a}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          { url: `127.0.0.1:${b}`, protocolBinding: 'GRPC', protocolVersion: '1.0' },
        ],
      });
      const client = clientFor(cards.url, CLIENT_BINDINGS, { retry: false });
      const error = (await client.send('echo nowhere').catch((caught: unknown) => caught)) as A2aTransportError;
      await client.close();
      expect(error).toBeInstanceOf(A2aTransportError);
      expect(error).toMatchObject({ kind: 'Network', connectFailed: true });
    });
  });

  describe.each(['JSONRPC', 'HTTP+JSON'] as const)('over %s through a flaky proxy', (binding) => {
    let proxy: FlakyHttpProxy;
    beforeAll(async () => {
      proxy = await startFlakyHttpProxy(origins()[server].url);
    });
    afterAll(() => proxy?.close());

    it('a dropped SendMessage answer is retried with the same messageId', async () => {
      const client = clientFor(proxy.url, binding);
      proxy.once('SendMessage', { kind: 'drop-response' });
      const task = (await client.send('echo once')) as Task;
      await client.close();
      const sends = proxy.requests.filter((request) => request.operation === 'SendMessage').slice(-2);
      expect(sends).toHaveLength(2);
      const messageIdOf = (body: any) => (binding === 'JSONRPC' ? body.params : body).message.messageId;
      expect(messageIdOf(sends[1].body)).toBe(messageIdOf(sends[0].body));
      const firstTask = binding === 'JSONRPC' ? sends[0].upstreamBody.result.task : sends[0].upstreamBody.task;
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      // Our agent dedupes on messageId: the retry gets the task the lost answer carried. The SDK's runs it again.
      if (server === 'nestjs-a2a') expect(task.id).toBe(firstTask.id);
      else expect(task.id).not.toBe(firstTask.id);
    });

    it('a 503 with Retry-After is retried after it', async () => {
      const client = clientFor(proxy.url, binding);
      const task = (await client.send('echo first')) as Task;
      proxy.once('GetTask', { kind: 'answer', status: 503, headers: { 'retry-after': '0' }, body: '' });
      expect((await client.getTask(task.id)).id).toBe(task.id);
      await client.close();
      expect(proxy.requests.filter((request) => request.operation === 'GetTask').length).toBeGreaterThanOrEqual(2);
    });

    it('Unavailable beyond maxAttempts is an A2aProtocolError of kind Unavailable', async () => {
      const client = clientFor(proxy.url, binding, { retry: { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 5 } });
      const task = (await client.send('echo first')) as Task;
      proxy.once('GetTask', { kind: 'answer', status: 503 });
      proxy.once('GetTask', { kind: 'answer', status: 503 });
      const error = await client.getTask(task.id).catch((caught: unknown) => caught);
      await client.close();
      expect(error).toBeInstanceOf(A2aProtocolError);
      expect(error).toMatchObject({ kind: 'Unavailable', httpStatus: 503 });
    });

    it('an answer that does not come within timeoutMs is a Timeout', async () => {
      const client = clientFor(proxy.url, binding, { timeoutMs: 300, retry: false });
      await client.card();
      proxy.once('ListTasks', { kind: 'hang' });
      const started = Date.now();
      await expect(client.listTasks()).rejects.toMatchObject({ kind: 'Timeout' });
      expect(Date.now() - started).toBeLessThan(2000);
      await client.close();
    });

    it('a non-idempotent call is not retried: CreateTaskPushNotificationConfig without an id', async () => {
      const client = clientFor(proxy.url, binding);
      const task = (await client.send('echo first')) as Task;
      proxy.once('CreateTaskPushNotificationConfig', { kind: 'answer', status: 503 });
      const before = proxy.requests.length;
      await expect(client.createPushConfig(task.id, { url: 'https://push.example.com/hook' })).rejects.toMatchObject({
        kind: 'Unavailable',
      });
      await client.close();
      expect(
        proxy.requests.slice(before).filter((request) => request.operation === 'CreateTaskPushNotificationConfig'),
      ).toHaveLength(1);
    });
  });

  describe('over GRPC through a flaky proxy', () => {
    let proxy: FlakyGrpcProxy;
    let http: FlakyHttpProxy;
    beforeAll(async () => {
      proxy = await startFlakyGrpcProxy(origins()[server].grpc);
      // The card, served with its GRPC interface pointing at the gRPC proxy.
      http = await startFlakyHttpProxy(origins()[server].url, (card: AgentCard) => ({
        ...card,
        supportedInterfaces: card.supportedInterfaces.map((entry) =>
          entry.protocolBinding === 'GRPC' ? { ...entry, url: proxy.address } : entry,
        ),
      }));
    });
    afterAll(async () => {
      proxy?.close();
      await http?.close();
    });

    it('a dropped SendMessage answer is retried with the same messageId', async () => {
      const client = clientFor(http.url, 'GRPC');
      proxy.once('SendMessage', { kind: 'drop-response' });
      const task = (await client.send('echo once')) as Task;
      await client.close();
      const sends = proxy.calls.filter((call) => call.operation === 'SendMessage').slice(-2);
      expect(sends).toHaveLength(2);
      expect(sends[1].request.message.messageId).toBe(sends[0].request.message.messageId);
      if (server === 'nestjs-a2a') expect(task.id).toBe(sends[0].upstreamResponse.task.id);
      else expect(task.id).not.toBe(sends[0].upstreamResponse.task.id);
    });

    it('UNAVAILABLE is retried', async () => {
      const client = clientFor(http.url, 'GRPC');
      const task = (await client.send('echo first')) as Task;
      proxy.once('GetTask', { kind: 'unavailable' });
      expect((await client.getTask(task.id)).id).toBe(task.id);
      await client.close();
      expect(proxy.calls.filter((call) => call.operation === 'GetTask').length).toBeGreaterThanOrEqual(2);
    });
  });
});
