import { jest } from '@jest/globals';
import { lastValueFrom, take, toArray, type Observable } from 'rxjs';
import { eventIdOf, type AgentCard, type StreamResponse, type Task } from '../../../libs/a2a/src/client.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { clientFor, within } from './fixtures/client-targets.js';
import { startFlakyGrpcProxy, type FlakyGrpcProxy } from './fixtures/flaky-grpc.proxy.js';
import { startFlakyHttpProxy, type FlakyHttpProxy } from './fixtures/flaky-http.proxy.js';
import { startSdkAgent, type RunningSdkAgent } from './fixtures/sdk-agent.server.js';

/**
 * Streams that break are resumed: on the HTTP bindings from the SSE `id:` of the last event (`Last-Event-ID`, docs/decisions.md,
 * "Resuming streams"), so nothing is repeated or lost; on gRPC (frames carry no id) and with agents that send no ids,
 * from the task's current state. `subscribe(taskId, { lastEventId })` resumes by hand on every binding.
 */
let ours: RunningAgent;
let sdk: RunningSdkAgent;
let silence: { mockRestore(): void };

beforeAll(async () => {
  silence = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  [ours, sdk] = await Promise.all([startConformanceAgent({ withGrpc: true, push: false }), startSdkAgent()]);
});
afterAll(async () => {
  await Promise.all([ours?.close(), sdk?.close()]);
  silence?.mockRestore();
});

const stateOf = (event: StreamResponse) =>
  'task' in event ? event.task.status.state : 'statusUpdate' in event ? event.statusUpdate.status.state : undefined;
const kindOf = (event: StreamResponse) => Object.keys(event)[0];
const collect = (stream: Observable<StreamResponse>) =>
  within(lastValueFrom(stream.pipe(toArray())), 15_000, 'the stream');

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('our agent over %s', (binding) => {
  let proxy: FlakyHttpProxy;
  beforeAll(async () => {
    proxy = await startFlakyHttpProxy(ours.url);
  });
  afterAll(() => proxy?.close());

  it('every event carries its SSE id (eventIdOf)', async () => {
    const client = clientFor(proxy.url, binding);
    const events = await collect(client.stream('stream 2'));
    await client.close();
    const ids = events.map((event) => Number(eventIdOf(event)));
    expect(ids.every((id) => Number.isInteger(id))).toBe(true);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });

  it('a subscription cut after the first event resumes with Last-Event-ID: nothing repeated, nothing lost', async () => {
    const client = clientFor(proxy.url, binding);
    const task = (await client.send('slow 800', { configuration: { returnImmediately: true } })) as Task;
    proxy.once('SubscribeToTask', { kind: 'cut-stream', afterEvents: 1 });
    const events = await collect(client.subscribe(task.id));
    await client.close();
    expect(events.map(kindOf)).toEqual(['task', 'statusUpdate']);
    expect(stateOf(events[1])).toBe('TASK_STATE_COMPLETED');
    const subscriptions = proxy.requests.filter((request) => request.operation === 'SubscribeToTask').slice(-2);
    expect(subscriptions[0].headers['last-event-id']).toBeUndefined();
    expect(subscriptions[1].headers['last-event-id']).toBe(eventIdOf(events[0]));
  });

  it('a SendStreamingMessage cut after the first event goes on as SubscribeToTask from it, and ends at the terminal state', async () => {
    const client = clientFor(proxy.url, binding);
    proxy.once('SendStreamingMessage', { kind: 'cut-stream', afterEvents: 1 });
    const events = await collect(client.stream('slow 800'));
    await client.close();
    expect(events.map(kindOf)).toEqual(['task', 'statusUpdate']);
    expect(stateOf(events.at(-1)!)).toBe('TASK_STATE_COMPLETED');
    const resumed = proxy.requests.filter((request) => request.operation === 'SubscribeToTask').at(-1)!;
    expect(resumed.headers['last-event-id']).toBe(eventIdOf(events[0]));
  });

  it('with resume: false a cut stream errors with a Network error', async () => {
    const client = clientFor(proxy.url, binding);
    const task = (await client.send('slow 500', { configuration: { returnImmediately: true } })) as Task;
    proxy.once('SubscribeToTask', { kind: 'cut-stream', afterEvents: 1 });
    await expect(collect(client.subscribe(task.id, { resume: false }))).rejects.toMatchObject({ kind: 'Network' });
    await client.close();
  });

  it('subscribe with lastEventId sends only the events after it', async () => {
    const client = clientFor(proxy.url, binding);
    // The first event of a running task, then the stream left (take(1) unsubscribes).
    const [first] = await collect(client.stream('slow 800').pipe(take(1)));
    const rest = await collect(client.subscribe((first as { task: Task }).task.id, { lastEventId: eventIdOf(first) }));
    await client.close();
    expect(rest.map(kindOf)).toEqual(['statusUpdate']);
    expect(Number(eventIdOf(rest[0]))).toBeGreaterThan(Number(eventIdOf(first)));
    expect(proxy.requests.at(-1)!.headers['last-event-id']).toBe(eventIdOf(first));
  });
});

describe('our agent over GRPC', () => {
  let proxy: FlakyGrpcProxy;
  let cardProxy: FlakyHttpProxy;
  beforeAll(async () => {
    proxy = await startFlakyGrpcProxy(ours.grpcAddress!);
    cardProxy = await startFlakyHttpProxy(ours.url, (card: AgentCard) => ({
      ...card,
      supportedInterfaces: card.supportedInterfaces.map((entry) =>
        entry.protocolBinding === 'GRPC' ? { ...entry, url: proxy.address } : entry,
      ),
    }));
  });
  afterAll(async () => {
    proxy?.close();
    await cardProxy?.close();
  });

  it('a cut subscription resubscribes (no ids on gRPC): the task again, then its end', async () => {
    const client = clientFor(cardProxy.url, 'GRPC');
    const task = (await client.send('slow 800', { configuration: { returnImmediately: true } })) as Task;
    proxy.once('SubscribeToTask', { kind: 'cut-stream', afterMessages: 1 });
    const events = await collect(client.subscribe(task.id));
    await client.close();
    expect(events.map(kindOf)).toEqual(['task', 'task', 'statusUpdate']);
    expect(stateOf(events.at(-1)!)).toBe('TASK_STATE_COMPLETED');
    expect(proxy.calls.filter((call) => call.operation === 'SubscribeToTask').length).toBe(2);
  });

  it('a task that ended while the stream was down ends the stream with its final state', async () => {
    const client = clientFor(cardProxy.url, 'GRPC');
    const task = (await client.send('slow 100', { configuration: { returnImmediately: true } })) as Task;
    // Silent until the task has ended, then cut: resubscribing to a terminal task is UnsupportedOperation (spec §3.1.6).
    proxy.once('SubscribeToTask', { kind: 'cut-stream', afterMessages: 1, holdMs: 500 });
    const events = await collect(client.subscribe(task.id));
    await client.close();
    expect(events.map(kindOf)).toEqual(['task', 'task']);
    expect(stateOf(events.at(-1)!)).toBe('TASK_STATE_COMPLETED');
  });

  it('lastEventId travels as the last-event-id metadata', async () => {
    const http = clientFor(cardProxy.url, 'JSONRPC');
    const grpcOnly = clientFor(cardProxy.url, 'GRPC');
    // An id from an HTTP stream of a running task; the resumption goes over gRPC.
    const [first] = await collect(http.stream('slow 800').pipe(take(1)));
    const rest = await collect(
      grpcOnly.subscribe((first as { task: Task }).task.id, { lastEventId: eventIdOf(first) }),
    );
    await Promise.all([http.close(), grpcOnly.close()]);
    expect(proxy.calls.at(-1)!.metadata['last-event-id']).toBe(eventIdOf(first));
    expect(rest.map(kindOf)).toEqual(['statusUpdate']);
    expect(stateOf(rest[0])).toBe('TASK_STATE_COMPLETED');
  });
});

describe('the @a2a-js/sdk agent (no SSE ids)', () => {
  let proxy: FlakyHttpProxy;
  beforeAll(async () => {
    proxy = await startFlakyHttpProxy(sdk.url);
  });
  afterAll(() => proxy?.close());

  it.each(['JSONRPC', 'HTTP+JSON'] as const)(
    "a cut subscription over %s resubscribes from the task's state and ends at its end",
    async (binding) => {
      const client = clientFor(proxy.url, binding);
      const task = (await client.send('slow 800', { configuration: { returnImmediately: true } })) as Task;
      proxy.once('SubscribeToTask', { kind: 'cut-stream', afterEvents: 1 });
      const events = await collect(client.subscribe(task.id));
      await client.close();
      expect(kindOf(events[0])).toBe('task');
      expect(eventIdOf(events[0])).toBeUndefined();
      expect(stateOf(events.at(-1)!)).toBe('TASK_STATE_COMPLETED');
      const subscriptions = proxy.requests.filter((request) => request.operation === 'SubscribeToTask').slice(-2);
      expect(subscriptions).toHaveLength(2);
      expect(subscriptions[1].headers['last-event-id']).toBeUndefined();
    },
  );
});
