import 'reflect-metadata';
import { context, propagation, trace, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import {
  ForbiddenException,
  Injectable,
  Module,
  type CanActivate,
  type ExecutionContext,
  type INestApplication,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  a2aInvocationOf,
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  working,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { connectA2aGrpc, grpcBinding } from '../../../libs/a2a/src/grpc.js';
import type { A2aAuditRecord, A2aAuditSink } from '../../../libs/a2a/src/audit/a2a-audit.sink.js';
import { injectTraceContext } from '../../../libs/a2a/src/observability/otel-api.js';
import { freePort, GrpcJsonClient, type Json } from '../../fixtures/grpc-json.client.js';
import { createTestApplication } from '../../fixtures/test-app.js';

/**
 * Tracing through @opentelemetry/api on every binding, with the SDK's in-memory exporter registered globally (and
 * unregistered afterwards): the caller's `traceparent` is the parent of the operation's SERVER span, the skill run's
 * span is its child and is active while the skill runs (a span the skill makes is the skill span's child, and
 * `injectTraceContext` writes it), failures set status ERROR with the A2A error kind.
 */

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

/** What the skill's `injectTraceContext` wrote, by task id. */
const injected = new Map<string, Record<string, string>>();
const records: A2aAuditRecord[] = [];
const auditSink: A2aAuditSink = { record: (record) => void records.push(record) };

/** `trace`: a span of its own inside the skill, and the headers injectTraceContext writes; `boom`: throws. */
@AgentSkill({ id: 'traced', name: 'Traced', description: 'Makes spans of its own', tags: ['test'], default: true })
class TracedSkill extends A2aSkillHandler {
  async *handle(ctx: SkillContext): AsyncIterable<SkillEvent> {
    if (ctx.text === 'boom') throw new Error('the skill broke');
    yield working();
    await sleep(5);
    trace.getTracer('test-skill').startActiveSpan('skill work', (span) => {
      injected.set(ctx.taskId, injectTraceContext({}));
      span.end();
    });
    injected.set(`${ctx.taskId}:skill`, injectTraceContext({}));
    yield artifact('done');
    yield complete();
  }
}

/** The module's own guard, for the test of refused calls: ListTasks is forbidden. */
@Injectable()
class NoListingGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (a2aInvocationOf(context)?.operation === 'ListTasks') throw new ForbiddenException('No listing here');
    return true;
  }
}

interface TracedApp {
  app: INestApplication;
  httpUrl: string;
  grpc: GrpcJsonClient;
}

/** The traced agent on all three bindings; `express: true` sends HTTP calls through Express (no direct dispatch). */
async function startTracedApp({ express = false } = {}): Promise<TracedApp> {
  const grpcAddress = `127.0.0.1:${await freePort()}`;
  @Module({
    imports: [
      A2aModule.forRoot({
        card: { name: 'Traced agent', description: 'Tracing tests' },
        bindings: [grpcBinding({ url: grpcAddress })],
        audit: auditSink,
        observability: { metrics: false },
        guards: [NoListingGuard],
        ...(express ? { directDispatch: false } : {}),
      }),
    ],
    providers: [TracedSkill],
  })
  class TracedModule {}
  const moduleRef = await Test.createTestingModule({ imports: [TracedModule] }).compile();
  const app = createTestApplication(moduleRef);
  connectA2aGrpc(app);
  await app.startAllMicroservices();
  await app.listen(0, '127.0.0.1');
  return { app, httpUrl: (await app.getUrl()).replace('[::1]', '127.0.0.1'), grpc: new GrpcJsonClient(grpcAddress) };
}

let direct: TracedApp;
let throughExpress: TracedApp;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  direct = await startTracedApp();
  throughExpress = await startTracedApp({ express: true });
});

afterAll(async () => {
  for (const target of [direct, throughExpress]) {
    target?.grpc.close();
    await target?.app.close();
  }
  trace.disable();
  propagation.disable();
  context.disable();
  await provider.shutdown();
});

beforeEach(() => exporter.reset());

/** A caller's trace context: a fresh trace id and span id, sampled. */
function callerContext(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

const userMessage = (text: string): Json => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] });

async function postJson(
  target: TracedApp,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<Json> {
  const response = await fetch(`${target.httpUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return (await response.json()) as Json;
}

interface BindingCalls {
  binding: string;
  send(target: TracedApp, text: string, headers: Record<string, string>): Promise<string>;
  /** A call with no result the test needs: GetTask or ListTasks, with `{ id }` or `{}`. */
  call(
    target: TracedApp,
    operation: 'GetTask' | 'ListTasks',
    request: Json,
    headers: Record<string, string>,
  ): Promise<unknown>;
}

const bindings: BindingCalls[] = [
  {
    binding: 'JSONRPC',
    call: (target, method, params, headers) =>
      postJson(target, '/a2a/jsonrpc', { jsonrpc: '2.0', id: 1, method, params }, headers),
    async send(target, text, headers) {
      const answer = await postJson(
        target,
        '/a2a/jsonrpc',
        { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage(text) } },
        headers,
      );
      return ((answer.result as Json).task as Json).id as string;
    },
  },
  {
    binding: 'HTTP+JSON',
    call: (target, operation, request, headers) =>
      fetch(`${target.httpUrl}/a2a/rest/tasks${operation === 'GetTask' ? `/${request.id as string}` : ''}`, {
        headers,
      }),
    async send(target, text, headers) {
      const answer = await postJson(target, '/a2a/rest/message:send', { message: userMessage(text) }, headers);
      return (answer.task as Json).id as string;
    },
  },
  {
    binding: 'GRPC',
    call: (target, operation, request, headers) =>
      target.grpc.unary(operation, request, headers).catch((error: unknown) => error),
    async send(target, text, headers) {
      const answer = await target.grpc.unary('SendMessage', { message: userMessage(text) }, headers);
      return (answer.task as Json).id as string;
    },
  },
];

/** The finished spans of `traceId`, once `ready` says they are all there (the skill's span ends after the answer). */
async function spansOf(traceId: string, ready: (spans: ReadableSpan[]) => boolean): Promise<ReadableSpan[]> {
  let spans: ReadableSpan[] = [];
  for (let i = 0; i < 100; i++) {
    spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
    if (ready(spans)) return spans;
    await sleep(20);
  }
  throw new Error(`spans of ${traceId} never got ready: ${spans.map((span) => span.name).join(', ')}`);
}

const named = (spans: ReadableSpan[], name: string) => spans.find((span) => span.name === name);

describe.each(bindings)('tracing on $binding', ({ binding, send, call }) => {
  it("makes the operation's SERVER span a child of the caller's traceparent, and the skill's span a child of it", async () => {
    const caller = callerContext();
    const taskId = await send(direct, 'trace', { traceparent: caller.traceparent });
    const spans = await spansOf(caller.traceId, (all) =>
      ['a2a.SendMessage', 'a2a.skill traced', 'skill work'].every((name) => named(all, name)),
    );

    const operation = named(spans, 'a2a.SendMessage')!;
    expect(operation.kind).toBe(SpanKind.SERVER);
    expect(operation.parentSpanContext?.spanId).toBe(caller.spanId);
    expect(operation.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(operation.attributes).toMatchObject({
      'a2a.binding': binding,
      'a2a.operation': 'SendMessage',
      'a2a.task.id': taskId,
      'a2a.skill.id': 'traced',
    });
    expect(typeof operation.attributes['a2a.context.id']).toBe('string');

    const skill = named(spans, 'a2a.skill traced')!;
    expect(skill.parentSpanContext?.spanId).toBe(operation.spanContext().spanId);
    expect(skill.attributes).toMatchObject({
      'a2a.task.id': taskId,
      'a2a.skill.id': 'traced',
      'a2a.skill.attempt': 1,
      'a2a.task.state': 'TASK_STATE_COMPLETED',
    });
    expect(skill.attributes['a2a.context.id']).toBe(operation.attributes['a2a.context.id']);

    const work = named(spans, 'skill work')!;
    expect(work.parentSpanContext?.spanId).toBe(skill.spanContext().spanId);
    // What an A2A client called from the skill would send: the span active at that point.
    expect(injected.get(taskId)).toEqual({ traceparent: `00-${caller.traceId}-${work.spanContext().spanId}-01` });
    expect(injected.get(`${taskId}:skill`)).toEqual({
      traceparent: `00-${caller.traceId}-${skill.spanContext().spanId}-01`,
    });
  });

  it('sets status ERROR, the exception and the A2A error kind on a failed operation', async () => {
    const caller = callerContext();
    const missing = randomUUID();
    await call(direct, 'GetTask', { id: missing }, { traceparent: caller.traceparent });
    const [span] = await spansOf(caller.traceId, (all) => named(all, 'a2a.GetTask') !== undefined);
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({
      'a2a.binding': binding,
      'a2a.operation': 'GetTask',
      'a2a.task.id': missing,
      'a2a.error.kind': 'TaskNotFound',
    });
    expect(span.events.map((event) => event.name)).toContain('exception');
  });

  it("covers the app's guards: a refused call has its span, status ERROR, with the refusal's kind", async () => {
    const caller = callerContext();
    await call(direct, 'ListTasks', {}, { traceparent: caller.traceparent });
    const [span] = await spansOf(caller.traceId, (all) => named(all, 'a2a.ListTasks') !== undefined);
    expect(span.parentSpanContext?.spanId).toBe(caller.spanId);
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({ 'a2a.binding': binding, 'a2a.error.kind': 'PermissionDenied' });
  });
});

describe.each(bindings.filter(({ binding }) => binding !== 'GRPC'))(
  'tracing on $binding through Express (directDispatch: false)',
  ({ send }) => {
    it('makes the same spans as the direct path', async () => {
      const caller = callerContext();
      const taskId = await send(throughExpress, 'trace', { traceparent: caller.traceparent });
      const spans = await spansOf(caller.traceId, (all) =>
        ['a2a.SendMessage', 'a2a.skill traced', 'skill work'].every((name) => named(all, name)),
      );
      const operation = named(spans, 'a2a.SendMessage')!;
      expect(operation.parentSpanContext?.spanId).toBe(caller.spanId);
      expect(operation.attributes['a2a.task.id']).toBe(taskId);
      expect(named(spans, 'a2a.skill traced')!.parentSpanContext?.spanId).toBe(operation.spanContext().spanId);
      expect(named(spans, 'skill work')!.parentSpanContext?.spanId).toBe(
        named(spans, 'a2a.skill traced')!.spanContext().spanId,
      );
    });
  },
);

describe('tracing of runs and streams', () => {
  it("sets status ERROR on the skill's span when the skill throws (its task is FAILED)", async () => {
    const caller = callerContext();
    await bindings[1].send(direct, 'boom', { traceparent: caller.traceparent });
    const spans = await spansOf(caller.traceId, (all) => named(all, 'a2a.skill traced') !== undefined);
    const skill = named(spans, 'a2a.skill traced')!;
    expect(skill.status.code).toBe(SpanStatusCode.ERROR);
    expect(skill.attributes['a2a.task.state']).toBe('TASK_STATE_FAILED');
    expect(skill.events.find((event) => event.name === 'exception')?.attributes?.['exception.message']).toBe(
      'the skill broke',
    );
    // The caller's operation succeeded: it got the FAILED task.
    expect(named(spans, 'a2a.SendMessage')!.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it('keeps a stream’s span open until its last event, with the skill’s span under it (SSE and gRPC)', async () => {
    const sse = callerContext();
    const response = await fetch(`${direct.httpUrl}/a2a/rest/message:stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: sse.traceparent },
      body: JSON.stringify({ message: userMessage('trace') }),
    });
    expect(await response.text()).toContain('TASK_STATE_COMPLETED');
    const grpcCaller = callerContext();
    const frames = await direct.grpc.collect(
      'SendStreamingMessage',
      { message: userMessage('trace') },
      { traceparent: grpcCaller.traceparent },
    );
    expect(frames.length).toBeGreaterThan(1);
    for (const caller of [sse, grpcCaller]) {
      const spans = await spansOf(
        caller.traceId,
        (all) => named(all, 'a2a.SendStreamingMessage') !== undefined && named(all, 'a2a.skill traced') !== undefined,
      );
      const operation = named(spans, 'a2a.SendStreamingMessage')!;
      const skill = named(spans, 'a2a.skill traced')!;
      expect(operation.parentSpanContext?.spanId).toBe(caller.spanId);
      expect(skill.parentSpanContext?.spanId).toBe(operation.spanContext().spanId);
      // The operation's span lasts as long as the stream: it ends after the skill's last event was committed.
      expect(hrToMs(operation.endTime)).toBeGreaterThanOrEqual(hrToMs(skill.startTime));
    }
  });

  it('starts a trace of its own for a call without traceparent', async () => {
    exporter.reset();
    const taskId = await bindings[0].send(direct, 'trace', {});
    await sleep(0);
    const spans = await (async () => {
      for (let i = 0; i < 100; i++) {
        const found = exporter.getFinishedSpans();
        if (found.some((span) => span.name === 'a2a.skill traced' && span.attributes['a2a.task.id'] === taskId))
          return found;
        await sleep(20);
      }
      throw new Error('no spans');
    })();
    const operation = spans.find(
      (span) => span.name === 'a2a.SendMessage' && span.attributes['a2a.task.id'] === taskId,
    )!;
    expect(operation.parentSpanContext).toBeUndefined();
  });

  it('gives every audit record of a traced task its trace id', async () => {
    const caller = callerContext();
    const taskId = await bindings[2].send(direct, 'trace', { traceparent: caller.traceparent });
    await spansOf(caller.traceId, (all) => named(all, 'a2a.skill traced') !== undefined);
    const ofTask = records.filter((record) => record.taskId === taskId);
    expect(ofTask.map((record) => record.kind)).toEqual(['message', 'state', 'artifact', 'state']);
    expect(new Set(ofTask.map((record) => record.traceId))).toEqual(new Set([caller.traceId]));
  });
});

function hrToMs([seconds, nanos]: [number, number]): number {
  return seconds * 1000 + nanos / 1e6;
}
