import 'reflect-metadata';
import {
  context,
  createTraceState,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { lastValueFrom, take, toArray } from 'rxjs';
import { A2aAgentClient, type AgentCard, type Task } from '../../../libs/a2a/src/client.js';
import { ClientTracing } from '../../../libs/a2a/src/client/client-tracing.js';
import type { A2aAuditRecord } from '../../../libs/a2a/src/audit/a2a-audit.sink.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { CLIENT_BINDINGS, clientFor, LOOPBACK, within } from './fixtures/client-targets.js';

/**
 * Client trace propagation against our conformance agent (in this process, on JSON-RPC, HTTP+JSON and gRPC), with the
 * SDK's in-memory exporter registered globally: each call is a CLIENT span `a2a.client.<Operation>` under the
 * caller's span, and the agent's SERVER span is its child (the `traceparent` went as an HTTP header or gRPC metadata).
 * A header-recording agent checks what is sent without a tracer provider (the active context alone), with
 * `tracing: false` (nothing), and `nestjs-a2a/client` is checked to import `@opentelemetry/api` only with `import()`.
 */

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = () => trace.getTracer('test-caller');

let agent: RunningAgent;
const clients: A2aAgentClient[] = [];

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  agent = await startConformanceAgent({ withGrpc: true, push: false });
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await agent?.close();
  trace.disable();
  propagation.disable();
  context.disable();
  await provider.shutdown();
});

beforeEach(() => exporter.reset());

function client(
  binding: (typeof CLIENT_BINDINGS)[number],
  options: Parameters<typeof clientFor>[2] = {},
): A2aAgentClient {
  const made = clientFor(agent.url, binding, options);
  clients.push(made);
  return made;
}

/** Runs `work` inside a fresh caller span (ended after it); the span's trace and span ids. */
async function asCaller<T>(work: () => Promise<T>): Promise<{ result: T; traceId: string; spanId: string }> {
  return tracer().startActiveSpan('caller', async (span) => {
    try {
      return { result: await work(), traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
    } finally {
      span.end();
    }
  });
}

/** The finished spans of `traceId`, once `names` are all there (the agent's spans may end after the answer). */
async function spansOf(traceId: string, names: string[]): Promise<ReadableSpan[]> {
  let spans: ReadableSpan[] = [];
  for (let i = 0; i < 100; i++) {
    spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
    if (names.every((name) => spans.some((span) => span.name === name))) return spans;
    await sleep(20);
  }
  throw new Error(`spans of ${traceId} never got ready: ${spans.map((span) => span.name).join(', ')}`);
}

const named = (spans: ReadableSpan[], name: string) => spans.find((span) => span.name === name)!;

describe.each(CLIENT_BINDINGS)('client tracing over %s', (binding) => {
  it("send: a CLIENT span under the caller's, and the agent's SERVER span under it, in one trace", async () => {
    const agentClient = client(binding);
    const { result, traceId, spanId } = await asCaller(() => agentClient.send('echo traced') as Promise<Task>);
    const spans = await spansOf(traceId, ['a2a.client.SendMessage', 'a2a.SendMessage', 'a2a.skill conformance']);

    const clientSpan = named(spans, 'a2a.client.SendMessage');
    expect(clientSpan.kind).toBe(SpanKind.CLIENT);
    expect(clientSpan.parentSpanContext?.spanId).toBe(spanId);
    expect(clientSpan.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(clientSpan.attributes).toMatchObject({
      'a2a.operation': 'SendMessage',
      'a2a.binding': binding,
      'a2a.agent.name': 'A2A conformance agent',
      'a2a.agent.card.url': `${agent.url}/.well-known/agent-card.json`,
      'a2a.task.id': result.id,
      'a2a.context.id': result.contextId,
    });
    expect(clientSpan.attributes['a2a.interface.url']).toBe(
      binding === 'GRPC' ? agent.grpcAddress : binding === 'JSONRPC' ? `${agent.url}/` : agent.url,
    );

    const serverSpan = named(spans, 'a2a.SendMessage');
    expect(serverSpan.kind).toBe(SpanKind.SERVER);
    expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
    expect(serverSpan.attributes).toMatchObject({ 'a2a.binding': binding, 'a2a.task.id': result.id });
    expect(named(spans, 'a2a.skill conformance').parentSpanContext?.spanId).toBe(serverSpan.spanContext().spanId);
  });

  it('stream: one CLIENT span for the whole stream, ended when it completes, parent of the SERVER span', async () => {
    const agentClient = client(binding);
    const { result: events, traceId } = await asCaller(() =>
      within(lastValueFrom(agentClient.stream('stream 2').pipe(toArray())), 10_000),
    );
    const spans = await spansOf(traceId, ['a2a.client.SendStreamingMessage', 'a2a.SendStreamingMessage']);
    const clientSpans = spans.filter((span) => span.name === 'a2a.client.SendStreamingMessage');
    expect(clientSpans).toHaveLength(1);
    const taskId = 'task' in events[0] ? events[0].task.id : undefined;
    expect(clientSpans[0].attributes).toMatchObject({ 'a2a.binding': binding, 'a2a.task.id': taskId });
    expect(named(spans, 'a2a.SendStreamingMessage').parentSpanContext?.spanId).toBe(
      clientSpans[0].spanContext().spanId,
    );
  });

  it("a failed call: status ERROR, the exception and the error's kind; the agent's span is still its child", async () => {
    const agentClient = client(binding);
    const { result: error, traceId } = await asCaller(() =>
      agentClient.getTask('no-such-task').catch((caught: unknown) => caught),
    );
    expect(error).toMatchObject({ kind: 'TaskNotFound' });
    const spans = await spansOf(traceId, ['a2a.client.GetTask', 'a2a.GetTask']);
    const clientSpan = named(spans, 'a2a.client.GetTask');
    expect(clientSpan.status.code).toBe(SpanStatusCode.ERROR);
    expect(clientSpan.attributes).toMatchObject({
      'a2a.error.kind': 'TaskNotFound',
      'a2a.task.id': 'no-such-task',
      'a2a.binding': binding,
    });
    expect(clientSpan.events.map((event) => event.name)).toContain('exception');
    expect(named(spans, 'a2a.GetTask').parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
  });
});

describe('client spans', () => {
  it('without a caller span, the CLIENT span starts a trace the agent continues', async () => {
    const agentClient = client('HTTP+JSON');
    const task = (await agentClient.send('echo root')) as Task;
    let clientSpan: ReadableSpan | undefined;
    for (let i = 0; i < 100 && !clientSpan; i++, await sleep(10))
      clientSpan = exporter
        .getFinishedSpans()
        .find((span) => span.name === 'a2a.client.SendMessage' && span.attributes['a2a.task.id'] === task.id);
    expect(clientSpan?.parentSpanContext).toBeUndefined();
    const spans = await spansOf(clientSpan!.spanContext().traceId, ['a2a.SendMessage']);
    expect(named(spans, 'a2a.SendMessage').parentSpanContext?.spanId).toBe(clientSpan!.spanContext().spanId);
  });

  it('a stream the reader leaves ends its span without an error', async () => {
    const agentClient = client('HTTP+JSON');
    const { traceId } = await asCaller(() =>
      within(lastValueFrom(agentClient.stream('slow 3000').pipe(take(1))), 10_000),
    );
    const [clientSpan] = (await spansOf(traceId, ['a2a.client.SendStreamingMessage'])).filter(
      (span) => span.name === 'a2a.client.SendStreamingMessage',
    );
    expect(clientSpan.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it("outbound audit records carry the client span's trace and span ids", async () => {
    const records: A2aAuditRecord[] = [];
    const agentClient = client('JSONRPC', { audit: { record: (record) => void records.push(record) } });
    const { traceId } = await asCaller(() => agentClient.send('echo audited'));
    const clientSpan = named(await spansOf(traceId, ['a2a.client.SendMessage']), 'a2a.client.SendMessage');
    expect(records.length).toBeGreaterThan(0);
    for (const record of records)
      expect(record).toMatchObject({ direction: 'outbound', traceId, spanId: clientSpan.spanContext().spanId });
  });
});

/** An agent whose one JSON-RPC interface records the headers of each call and answers with a message. */
async function startHeaderRecorder(
  card: AgentCard,
): Promise<{ url: string; seen: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const seen: IncomingHttpHeaders[] = [];
  let origin = '';
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET') {
      const served = {
        ...card,
        supportedInterfaces: [{ url: `${origin}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      };
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served));
    }
    seen.push(req.headers);
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const { id } = JSON.parse(body) as { id: number };
      const result = { message: { messageId: `m${seen.length}`, role: 'ROLE_AGENT', parts: [{ text: 'ok' }] } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: origin, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('what is sent', () => {
  let recorder: Awaited<ReturnType<typeof startHeaderRecorder>>;
  beforeAll(async () => {
    const card = (await (await fetch(`${agent.url}/.well-known/agent-card.json`)).json()) as AgentCard;
    recorder = await startHeaderRecorder(card);
  });
  afterAll(() => recorder?.close());
  beforeEach(() => recorder.seen.splice(0));

  const sender = (options: Partial<ConstructorParameters<typeof A2aAgentClient>[0]> = {}) => {
    const made = new A2aAgentClient({ cardUrl: recorder.url, network: LOOPBACK, ...options });
    clients.push(made);
    return made;
  };
  /** A sampled span context with a tracestate, active while `work` runs; no tracer needed. */
  const remoteParent = {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.SAMPLED,
    traceState: createTraceState('vendor=opaque'),
  };
  const underRemoteParent = <T>(work: () => Promise<T>) =>
    context.with(trace.setSpanContext(ROOT_CONTEXT, remoteParent), work);

  it("with a tracer provider: the CLIENT span's context, and the caller's tracestate", async () => {
    await underRemoteParent(() => sender().send('hi'));
    const [clientSpan] = (await spansOf(remoteParent.traceId, ['a2a.client.SendMessage'])).filter(
      (span) => span.name === 'a2a.client.SendMessage',
    );
    expect(recorder.seen[0]).toMatchObject({
      traceparent: `00-${remoteParent.traceId}-${clientSpan.spanContext().spanId}-01`,
      tracestate: 'vendor=opaque',
    });
  });

  it('without a tracer provider: the active context as it is, and no span', async () => {
    trace.disable();
    try {
      await underRemoteParent(() => sender().send('hi'));
      expect(recorder.seen[0]).toMatchObject({
        traceparent: `00-${remoteParent.traceId}-${remoteParent.spanId}-01`,
        tracestate: 'vendor=opaque',
      });
      await sender().send('no context');
      expect(recorder.seen[1].traceparent).toBeUndefined();
    } finally {
      trace.setGlobalTracerProvider(provider);
    }
    expect(exporter.getFinishedSpans().filter((span) => span.name.startsWith('a2a.client.'))).toEqual([]);
  });

  it('tracing: false sends no trace context and makes no span; an explicit traceparent header is sent as given', async () => {
    await underRemoteParent(() => sender({ tracing: false }).send('hi'));
    expect(recorder.seen[0].traceparent).toBeUndefined();
    const given = `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`;
    await underRemoteParent(() => sender().send('hi', { headers: { traceparent: given } }));
    expect(recorder.seen[1].traceparent).toBe(given);
    await sleep(20);
    expect(exporter.getFinishedSpans().filter((span) => span.name.startsWith('a2a.client.'))).toHaveLength(1);
  });
});

describe('without @opentelemetry/api', () => {
  it('the client tracing is a no-op: no trace, whether the package is missing or fails to load', async () => {
    expect(
      await new ClientTracing(true, 'http://agent.example/', async () => undefined).begin('SendMessage'),
    ).toBeUndefined();
    expect(
      await new ClientTracing(true, 'http://agent.example/', () => Promise.reject(new Error('broken install'))).begin(
        'SendMessage',
      ),
    ).toBeUndefined();
    expect(await new ClientTracing(false, 'http://agent.example/').begin('SendMessage')).toBeUndefined();
  });

  it('nestjs-a2a/client imports @opentelemetry/api at load time nowhere (only types, and the one import() of otel-api.ts)', () => {
    const SRC = resolve('libs/a2a/src');
    const RUNTIME_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;
    const seen = new Set<string>();
    const packages = new Set<string>();
    const pending = [resolve(SRC, 'client.ts')];
    while (pending.length > 0) {
      const file = pending.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const [, specifier] of readFileSync(file, 'utf8').matchAll(RUNTIME_IMPORT)) {
        if (specifier.startsWith('.')) pending.push(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
        else packages.add(specifier);
      }
    }
    expect(seen.has(resolve(SRC, 'client/client-tracing.ts'))).toBe(true);
    expect([...packages].filter((name) => name.startsWith('@opentelemetry/'))).toEqual([]);
    expect(readFileSync(resolve(SRC, 'observability/otel-api.ts'), 'utf8')).toMatch(/import\(specifier\)/);
  });
});
