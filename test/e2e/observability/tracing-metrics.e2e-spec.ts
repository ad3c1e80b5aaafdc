import 'reflect-metadata';
import { metrics } from '@opentelemetry/api';
import { MeterProvider, MetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import { Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  requireInput,
  working,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { connectA2aGrpc, grpcBinding } from '../../../libs/a2a/src/grpc.js';
import { A2aMetricNames } from '../../../libs/a2a/src/observability/observability.names.js';
import { freePort, GrpcJsonClient, type Json } from '../../fixtures/grpc-json.client.js';
import { createTestApplication } from '../../fixtures/test-app.js';

/**
 * Metrics through @opentelemetry/api, read with the SDK's MeterProvider and a pull reader registered globally for
 * each test (and unregistered after): tasks by state and time in state from the committed events, and open streams on
 * the HTTP and gRPC bindings going up, then down.
 */

/** A reader that only collects when asked: what an in-memory pull exporter does. */
class InMemoryReader extends MetricReader {
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }

  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

/** Releases the `hold` runs: each waits for its task id here. */
const releases = new Map<string, () => void>();

/** `quick`: WORKING, an artifact, COMPLETED. `hold`: WORKING until the test releases it. `ask`: INPUT_REQUIRED, then COMPLETED on the follow-up. */
@AgentSkill({ id: 'metered', name: 'Metered', description: 'Metrics tests', tags: ['test'], default: true })
class MeteredSkill extends A2aSkillHandler {
  async *handle(ctx: SkillContext): AsyncIterable<SkillEvent> {
    if (ctx.text === 'ask') return yield requireInput('Which one?');
    yield working();
    if (ctx.text === 'hold') await new Promise<void>((resolve) => releases.set(ctx.taskId, resolve));
    else await sleep(20);
    yield artifact('done');
    yield complete();
  }
}

let app: INestApplication;
let httpUrl: string;
let grpc: GrpcJsonClient;
let reader: InMemoryReader;
let provider: MeterProvider;

beforeAll(async () => {
  const grpcAddress = `127.0.0.1:${await freePort()}`;
  @Module({
    imports: [
      A2aModule.forRoot({
        card: { name: 'Metered agent', description: 'Metrics tests' },
        bindings: [grpcBinding({ url: grpcAddress })],
      }),
    ],
    providers: [MeteredSkill],
  })
  class MeteredModule {}
  const moduleRef = await Test.createTestingModule({ imports: [MeteredModule] }).compile();
  app = createTestApplication(moduleRef);
  connectA2aGrpc(app);
  await app.startAllMicroservices();
  await app.listen(0, '127.0.0.1');
  httpUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  grpc = new GrpcJsonClient(grpcAddress);
});

afterAll(async () => {
  grpc?.close();
  await app?.close();
});

// The agent was started before any provider was registered: its instruments follow the provider registered now.
beforeEach(() => {
  reader = new InMemoryReader();
  provider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(provider);
});

afterEach(async () => {
  metrics.disable();
  await provider.shutdown();
});

const userMessage = (text: string, extra: Json = {}): Json => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});

async function send(message: Json): Promise<Json> {
  const response = await fetch(`${httpUrl}/a2a/rest/message:send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message }),
  });
  return ((await response.json()) as { task: Json }).task;
}

/** The data points of `name`, as the reader collects them now. */
async function pointsOf<T = number>(name: string): Promise<Array<DataPoint<T>>> {
  const { resourceMetrics, errors } = await reader.collect();
  expect(errors).toEqual([]);
  const metric = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((m) => m.descriptor.name === name);
  return (metric?.dataPoints ?? []) as Array<DataPoint<T>>;
}

/** The value of `name` for the data point whose attributes include `attributes` (0 when there is none). */
async function valueOf(name: string, attributes: Record<string, string>): Promise<number> {
  const point = (await pointsOf(name)).find((p) =>
    Object.entries(attributes).every(([key, value]) => p.attributes[key] === value),
  );
  return point?.value ?? 0;
}

const state = (s: string) => ({ 'a2a.task.state': `TASK_STATE_${s}` });

describe('task metrics', () => {
  it('counts tasks by state and records the time spent in each state left, once a task completes', async () => {
    const task = await send(userMessage('quick'));
    expect((task.status as Json).state).toBe('TASK_STATE_COMPLETED');
    expect(await valueOf(A2aMetricNames.tasks, state('COMPLETED'))).toBe(1);
    expect(await valueOf(A2aMetricNames.tasks, state('WORKING'))).toBe(0);

    const durations = await pointsOf<Histogram>(A2aMetricNames.timeInState);
    const working = durations.find((p) => p.attributes['a2a.task.state'] === 'TASK_STATE_WORKING')!;
    expect(working.value.count).toBe(1);
    // The skill waits 20 ms between WORKING and COMPLETED; the histogram is in seconds.
    expect(working.value.sum).toBeGreaterThanOrEqual(0.015);
    expect(working.value.sum).toBeLessThan(5);
    // A terminal state is never left.
    expect(durations.some((p) => p.attributes['a2a.task.state'] === 'TASK_STATE_COMPLETED')).toBe(false);
  });

  it('records the time a task waited for input when the follow-up moves it on', async () => {
    const asked = await send(userMessage('ask'));
    expect((asked.status as Json).state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(await valueOf(A2aMetricNames.tasks, state('INPUT_REQUIRED'))).toBe(1);
    await sleep(30);
    const done = await send(userMessage('quick', { taskId: asked.id as string }));
    expect((done.status as Json).state).toBe('TASK_STATE_COMPLETED');
    expect(await valueOf(A2aMetricNames.tasks, state('INPUT_REQUIRED'))).toBe(0);
    expect(await valueOf(A2aMetricNames.tasks, state('COMPLETED'))).toBe(1);
    const waited = (await pointsOf<Histogram>(A2aMetricNames.timeInState)).find(
      (p) => p.attributes['a2a.task.state'] === 'TASK_STATE_INPUT_REQUIRED',
    )!;
    expect(waited.value.count).toBe(1);
    expect(waited.value.sum).toBeGreaterThanOrEqual(0.025);
  });

  it('counts open streams per binding: up while they are open, down once they end', async () => {
    const sseStream = await fetch(`${httpUrl}/a2a/rest/message:stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: userMessage('hold') }),
    });
    const sseReader = sseStream.body!.getReader();
    const firstFrame = new TextDecoder().decode((await sseReader.read()).value);
    const sseTaskId = /"id":"([^"]+)"/.exec(firstFrame)![1];
    const grpcStream = grpc.stream('SendStreamingMessage', { message: userMessage('hold') });
    const grpcFrames: Json[] = [];
    const grpcEnded = new Promise<void>((resolve, reject) => {
      grpcStream.on('data', (frame: Json) => grpcFrames.push(frame));
      grpcStream.on('end', resolve);
      grpcStream.on('error', reject);
    });
    for (let i = 0; i < 100 && releases.size < 2; i++) await sleep(10);
    const subscribed = await fetch(`${httpUrl}/a2a/rest/tasks/${sseTaskId}:subscribe`, {
      headers: { accept: 'text/event-stream' },
    });
    const subscribedReader = subscribed.body!.getReader();
    await subscribedReader.read();

    const sse = { 'a2a.binding': 'HTTP+JSON', 'a2a.operation': 'SendStreamingMessage' };
    const subscription = { 'a2a.binding': 'HTTP+JSON', 'a2a.operation': 'SubscribeToTask' };
    const overGrpc = { 'a2a.binding': 'GRPC', 'a2a.operation': 'SendStreamingMessage' };
    expect(await valueOf(A2aMetricNames.openStreams, sse)).toBe(1);
    expect(await valueOf(A2aMetricNames.openStreams, subscription)).toBe(1);
    expect(await valueOf(A2aMetricNames.openStreams, overGrpc)).toBe(1);
    expect(await valueOf(A2aMetricNames.tasks, state('WORKING'))).toBe(2);

    for (const release of releases.values()) release();
    releases.clear();
    while (!(await sseReader.read()).done);
    while (!(await subscribedReader.read()).done);
    await grpcEnded;
    expect(grpcFrames.length).toBeGreaterThan(1);
    for (let i = 0; i < 50 && (await valueOf(A2aMetricNames.openStreams, overGrpc)) !== 0; i++) await sleep(10);
    expect(await valueOf(A2aMetricNames.openStreams, sse)).toBe(0);
    expect(await valueOf(A2aMetricNames.openStreams, subscription)).toBe(0);
    expect(await valueOf(A2aMetricNames.openStreams, overGrpc)).toBe(0);
    expect(await valueOf(A2aMetricNames.tasks, state('WORKING'))).toBe(0);
    expect(await valueOf(A2aMetricNames.tasks, state('COMPLETED'))).toBe(2);
  });

  it('takes the stream of a client that leaves off the count', async () => {
    const controller = new AbortController();
    const stream = await fetch(`${httpUrl}/a2a/rest/message:stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: userMessage('hold') }),
      signal: controller.signal,
    });
    await stream.body!.getReader().read();
    const sse = { 'a2a.binding': 'HTTP+JSON', 'a2a.operation': 'SendStreamingMessage' };
    expect(await valueOf(A2aMetricNames.openStreams, sse)).toBe(1);
    controller.abort();
    for (let i = 0; i < 50 && (await valueOf(A2aMetricNames.openStreams, sse)) !== 0; i++) await sleep(10);
    expect(await valueOf(A2aMetricNames.openStreams, sse)).toBe(0);
    for (const release of releases.values()) release();
    releases.clear();
  });
});
