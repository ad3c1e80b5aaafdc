import 'reflect-metadata';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { setTimeout as sleep } from 'node:timers/promises';
import { A2aAgentClient } from '../../../libs/a2a/src/client.js';
import type { A2aAuditRecord } from '../../../libs/a2a/src/audit/a2a-audit.sink.js';
import {
  LOOPBACK,
  playTrip,
  startTravelAgentsInProcess,
  type InProcessTravelAgents,
  type PlayedTrip,
} from './trip-in-process.js';

/**
 * One trace id seen by all four travel agents for one scripted trip: the user's span, the orchestrator's operation and
 * `plan-trip` skill spans (both runs: the trip, then the answer to the hotel question), its CLIENT spans to each
 * worker, made inside the skill's span, and each worker's operation and skill spans (the calendar's over gRPC), all in
 * the user's trace, each hop's SERVER span the child of the caller's CLIENT span.
 *
 * Why in-process: the check reads every agent's spans from one `InMemorySpanExporter`, which only sees the spans of the
 * process its tracer provider is registered in. Booting the four apps' Nest modules in this Jest process (each its own
 * app on its own loopback port) lets one global provider see them all, with no collector between processes to set up
 * and wait for. Nothing else is shared: the calls between the agents still go over loopback HTTP and gRPC, so the trace
 * context crosses every hop as `traceparent` (headers, gRPC metadata), and the parent checks below fail if it does not
 * (with the client's injection turned off, every check but the first fails: no context leaks from caller to agent
 * inside the process). The four-process run of the same trip is `travel-trip.e2e-spec.ts`.
 */

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

let agents: InProcessTravelAgents;
let user: A2aAgentClient;
const outbound: A2aAuditRecord[] = [];

let trip: PlayedTrip;
let traceId: string;
let spans: ReadableSpan[];

/** Span names and how many of each one trip makes, once every agent's spans have ended. */
const EXPECTED: Record<string, number> = {
  'user: plan a trip': 1,
  // The user's two streams, and the orchestrator's stream to the flight agent.
  'a2a.client.SendStreamingMessage': 3,
  // The orchestrator's sends: the calendar, the hotel agent, and the hotel follow-up.
  'a2a.client.SendMessage': 3,
  // The orchestrator's two calls, and the flight agent's.
  'a2a.SendStreamingMessage': 3,
  // The calendar's, and the hotel agent's two.
  'a2a.SendMessage': 3,
  'a2a.skill plan-trip': 2,
  'a2a.skill find-free-days': 1,
  'a2a.skill hold-flight': 1,
  'a2a.skill find-hotel': 2,
};

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  agents = await startTravelAgentsInProcess({
    audit: { orchestrator: { record: (record) => void (record.direction === 'outbound' && outbound.push(record)) } },
  });
  user = new A2aAgentClient({ cardUrl: agents.orchestrator.url, network: LOOPBACK, timeoutMs: 10_000 });

  exporter.reset();
  ({ trip, traceId } = await trace.getTracer('test-user').startActiveSpan('user: plan a trip', async (span) => {
    try {
      return { trip: await playTrip(user), traceId: span.spanContext().traceId };
    } finally {
      span.end();
    }
  }));
  const count = (name: string) => exporter.getFinishedSpans().filter((span) => span.name === name).length;
  for (let i = 0; i < 200 && Object.entries(EXPECTED).some(([name, expected]) => count(name) < expected); i++)
    await sleep(20);
  spans = exporter.getFinishedSpans();
}, 25_000);

afterAll(async () => {
  await user?.close();
  await agents?.close();
  trace.disable();
  propagation.disable();
  context.disable();
  await provider.shutdown();
});

const byId = () => new Map(spans.map((span) => [span.spanContext().spanId, span]));
const parentOf = (span: ReadableSpan) => byId().get(span.parentSpanContext?.spanId ?? '');
const named = (name: string) => spans.filter((span) => span.name === name);

describe('one trip, one trace', () => {
  it('the trip completed, and made the spans it should: every agent, both runs of the orchestrator', () => {
    expect(trip.done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(Object.fromEntries(Object.keys(EXPECTED).map((name) => [name, named(name).length]))).toEqual(EXPECTED);
  });

  it("every span of every agent is in the end user's trace", () => {
    expect(spans.length).toBeGreaterThanOrEqual(Object.values(EXPECTED).reduce((sum, count) => sum + count, 0));
    expect(spans.filter((span) => span.spanContext().traceId !== traceId).map((span) => span.name)).toEqual([]);
  });

  it("the orchestrator's operation spans are children of the user's CLIENT spans, its skill spans children of them", () => {
    const userSpan = named('user: plan a trip')[0];
    const userCalls = named('a2a.client.SendStreamingMessage').filter((span) => parentOf(span) === userSpan);
    expect(userCalls).toHaveLength(2);
    for (const call of userCalls) expect(call.attributes['a2a.agent.name']).toBe('Travel orchestrator');
    const runs = named('a2a.skill plan-trip');
    for (const run of runs) {
      const operation = parentOf(run)!;
      expect(operation).toMatchObject({ name: 'a2a.SendStreamingMessage', kind: SpanKind.SERVER });
      expect(userCalls).toContain(parentOf(operation));
      expect(run.attributes['a2a.task.id']).toBe(trip.done.id);
    }
  });

  it.each([
    ['calendar', 'find-free-days', 'Calendar agent', 'GRPC', 1],
    ['flights', 'hold-flight', 'Flight agent', 'JSONRPC', 1],
    ['hotels', 'find-hotel', 'Hotel agent', 'JSONRPC', 2],
  ])(
    "%s: its skill span ← its SERVER span ← the orchestrator's CLIENT span ← the plan-trip skill span",
    (_agent, skill, cardName, binding, runs) => {
      const skillSpans = named(`a2a.skill ${skill}`);
      expect(skillSpans).toHaveLength(runs);
      for (const skillSpan of skillSpans) {
        const operation = parentOf(skillSpan)!;
        expect(operation.kind).toBe(SpanKind.SERVER);
        expect(operation.attributes['a2a.binding']).toBe(binding);
        const call = parentOf(operation)!;
        expect(call.kind).toBe(SpanKind.CLIENT);
        expect(call.name).toBe(`a2a.client.${operation.attributes['a2a.operation'] as string}`);
        expect(call.attributes).toMatchObject({
          'a2a.agent.name': cardName,
          'a2a.binding': binding,
          'a2a.task.id': skillSpan.attributes['a2a.task.id'],
        });
        expect(parentOf(call)?.name).toBe('a2a.skill plan-trip');
      }
    },
  );

  it("the orchestrator's outbound audit records name the trace, and the CLIENT span of the call that saw them", () => {
    const clientSpanIds = new Set(
      [...named('a2a.client.SendMessage'), ...named('a2a.client.SendStreamingMessage')].map(
        (span) => span.spanContext().spanId,
      ),
    );
    expect(outbound.length).toBeGreaterThan(0);
    for (const record of outbound) {
      expect(record.traceId).toBe(traceId);
      expect(clientSpanIds.has(record.spanId!)).toBe(true);
    }
    const workerTasks = Object.values(trip.itinerary.tasks).map((ref) => ref.taskId);
    expect(new Set(outbound.map((record) => record.taskId))).toEqual(new Set(workerTasks));
  });
});
