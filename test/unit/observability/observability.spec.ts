import { jest } from '@jest/globals';
import * as otel from '@opentelemetry/api';
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Logger } from '@nestjs/common';
import { of } from 'rxjs';
import type { A2aModuleOptions } from '../../../libs/a2a/src/a2a-module.options.js';
import { A2aAuditTrail } from '../../../libs/a2a/src/audit/audit.trail.js';
import type { AgentCardService } from '../../../libs/a2a/src/card/agent-card.service.js';
import type { A2aInvocation } from '../../../libs/a2a/src/context/a2a-invocation.js';
import { A2aObservability } from '../../../libs/a2a/src/observability/a2a-observability.js';
import { ObservabilityMessages } from '../../../libs/a2a/src/observability/observability.messages.js';
import { A2aMetricNames } from '../../../libs/a2a/src/observability/observability.names.js';
import {
  injectTraceContext,
  loadOpenTelemetryApi,
  openTelemetryApi,
  type OpenTelemetryApi,
} from '../../../libs/a2a/src/observability/otel-api.js';
import { TaskMetrics } from '../../../libs/a2a/src/observability/task.metrics.js';
import type { StatusOrArtifactEvent } from '../../../libs/a2a/src/bus/event-bus.js';
import type { TaskState } from '../../../libs/a2a/src/protocol/a2a.types.js';

/**
 * Tracing and metrics as units: the optional peer's loader, what is left of them without it (nothing but a null
 * check), with it but no SDK registered (no spans, no instruments), and the task metrics' bookkeeping.
 */

const api = otel as unknown as OpenTelemetryApi;
const scope = { tenant: '', owner: 'alice' };

function observabilityWith(options: A2aModuleOptions['observability'] = {}): A2aObservability {
  const trail = new A2aAuditTrail({} as AgentCardService, null);
  return new A2aObservability({ card: { name: 'n', description: 'd' }, observability: options }, trail);
}

const invocation = (operation: A2aInvocation['operation'] = 'GetTask'): A2aInvocation => ({
  operation,
  binding: 'JSONRPC',
  request: { id: 't1' },
  taskId: 't1',
  tenant: '',
  version: '1.0',
  extensions: [],
  headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
});

const statusEvent = (state: TaskState): StatusOrArtifactEvent => ({
  statusUpdate: { taskId: 't1', contextId: 'c1', status: { state } },
});

describe('loadOpenTelemetryApi', () => {
  it('resolves to undefined, without a word, when the package is not installed', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const missing = Object.assign(new Error("Cannot find package '@opentelemetry/api'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    await expect(loadOpenTelemetryApi(() => Promise.reject(missing))).resolves.toBeUndefined();
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });

  it('resolves to undefined, and warns, when the package is there but fails to load', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const broken = new SyntaxError('Unexpected token');
    await expect(loadOpenTelemetryApi(() => Promise.reject(broken))).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith(ObservabilityMessages.apiLoadFailed(broken));
    warn.mockRestore();
  });

  it('loads the installed API once (a CommonJS namespace through its default too); injectTraceContext is a no-op until then', async () => {
    expect(await loadOpenTelemetryApi(() => Promise.resolve({ default: api }))).toBe(api);
    const headers = { accept: 'application/json' };
    expect(injectTraceContext(headers)).toBe(headers);
    expect(headers).toEqual({ accept: 'application/json' });
    const loaded = await loadOpenTelemetryApi();
    expect(loaded?.trace.getTracerProvider).toBe(trace.getTracerProvider);
    expect(await loadOpenTelemetryApi()).toBe(loaded);
    expect(openTelemetryApi()).toBe(loaded);
  });

  it('injectTraceContext writes the active span as traceparent with the global propagator', async () => {
    await loadOpenTelemetryApi();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())] });
    trace.setGlobalTracerProvider(provider);
    try {
      const headers = trace.getTracer('t').startActiveSpan('outer', (span) => {
        const written = injectTraceContext<Record<string, string>>({});
        span.end();
        return { written, expected: `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01` };
      });
      expect(headers.written).toEqual({ traceparent: headers.expected });
    } finally {
      trace.disable();
      propagation.disable();
      context.disable();
    }
  });
});

describe('A2aObservability without @opentelemetry/api', () => {
  const observability = observabilityWith();
  observability.use(undefined);

  it('runs operations as they are: the very promise, no span, no count', () => {
    const answer = Promise.resolve({ ok: true });
    expect(observability.operation(invocation(), () => answer)).toBe(answer);
    const streamed = Promise.resolve({ events: of() });
    expect(observability.operation(invocation('SubscribeToTask'), () => streamed)).toBe(streamed);
  });

  it('starts no skill span, runs the skill as is, and takes commits and gRPC hooks in its stride', () => {
    expect(observability.skillRunStarted('t1', 'c1', 's', 1)).toBeUndefined();
    expect(observability.within(undefined, () => 42)).toBe(42);
    expect(observability.grpcCallStarted({ request: {} }, () => 'done')).toBe('done');
    expect(() => observability.grpcCallEnded({})).not.toThrow();
    expect(() => observability.committed('t1', scope, statusEvent('TASK_STATE_WORKING'))).not.toThrow();
  });
});

describe('A2aObservability with the API but no SDK registered', () => {
  it('makes no span: the operation is run as is, and a skill run has no trace', () => {
    const observability = observabilityWith();
    observability.use(api);
    const answer = Promise.resolve({});
    expect(observability.operation(invocation(), () => answer)).toBe(answer);
    expect(observability.skillRunStarted('t1', 'c1', 's', 1)).toBeUndefined();
  });

  it('makes no span either with tracing: false, even once a provider is registered', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    trace.setGlobalTracerProvider(provider);
    try {
      const observability = observabilityWith({ tracing: false, metrics: false });
      observability.use(api);
      const answer = Promise.resolve({});
      expect(observability.operation(invocation(), () => answer)).toBe(answer);
      expect(observability.skillRunStarted('t1', 'c1', 's', 1)).toBeUndefined();
      expect(exporter.getFinishedSpans()).toEqual([]);
    } finally {
      trace.disable();
    }
  });

  it("names its tracer after option tracerName, and extracts the caller's traceparent with the global propagator", async () => {
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    try {
      const observability = observabilityWith({ tracerName: 'my-agent' });
      observability.use(api);
      await observability.operation(invocation(), () => Promise.resolve({}));
      const [span] = exporter.getFinishedSpans();
      expect(span.name).toBe('a2a.GetTask');
      expect(span.instrumentationScope.name).toBe('my-agent');
      expect(span.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    } finally {
      trace.disable();
      propagation.disable();
    }
  });
});

class InMemoryReader extends MetricReader {
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }

  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

describe('TaskMetrics', () => {
  let reader: InMemoryReader;

  beforeEach(() => {
    reader = new InMemoryReader();
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  });
  afterEach(() => metrics.disable());

  async function points(name: string): Promise<Array<DataPoint<number | Histogram>>> {
    const { resourceMetrics } = await reader.collect();
    return (resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name)
      ?.dataPoints ?? []) as Array<DataPoint<number | Histogram>>;
  }

  async function counts(): Promise<Record<string, number>> {
    return Object.fromEntries(
      (await points(A2aMetricNames.tasks)).map((p) => [
        String(p.attributes['a2a.task.state']).replace('TASK_STATE_', ''),
        p.value as number,
      ]),
    );
  }

  it('moves a task between states: −1 for the one left (with its duration), +1 for the one entered, nothing for the same state', async () => {
    const taskMetrics = new TaskMetrics(api, 'test');
    taskMetrics.entered('t1', 'TASK_STATE_WORKING');
    taskMetrics.entered('t1', 'TASK_STATE_WORKING');
    taskMetrics.entered('t1', 'TASK_STATE_INPUT_REQUIRED');
    taskMetrics.entered('t1', 'TASK_STATE_WORKING');
    taskMetrics.entered('t1', 'TASK_STATE_COMPLETED');
    expect(await counts()).toEqual({ WORKING: 0, INPUT_REQUIRED: 0, COMPLETED: 1 });
    const durations = await points(A2aMetricNames.timeInState);
    expect(
      Object.fromEntries(durations.map((p) => [p.attributes['a2a.task.state'], (p.value as Histogram).count])),
    ).toEqual({
      TASK_STATE_WORKING: 2,
      TASK_STATE_INPUT_REQUIRED: 1,
    });
  });

  it('counts only the new state of a task it did not know (its old state is counted where it was known)', async () => {
    const taskMetrics = new TaskMetrics(api, 'test');
    taskMetrics.entered('elsewhere', 'TASK_STATE_CANCELED');
    expect(await counts()).toEqual({ CANCELED: 1 });
    expect(await points(A2aMetricNames.timeInState)).toEqual([]);
  });

  it('opens and closes streams with their attributes', async () => {
    const taskMetrics = new TaskMetrics(api, 'test');
    const close = taskMetrics.streamOpened({ 'a2a.binding': 'GRPC', 'a2a.operation': 'SubscribeToTask' })!;
    expect((await points(A2aMetricNames.openStreams)).map((p) => p.value)).toEqual([1]);
    close();
    expect((await points(A2aMetricNames.openStreams)).map((p) => p.value)).toEqual([0]);
  });

  it('records nothing while no meter provider is registered, and starts afresh with the one registered later', async () => {
    metrics.disable();
    const taskMetrics = new TaskMetrics(api, 'test');
    taskMetrics.entered('t1', 'TASK_STATE_WORKING');
    expect(taskMetrics.streamOpened({})).toBeUndefined();
    reader = new InMemoryReader();
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    taskMetrics.entered('t1', 'TASK_STATE_COMPLETED');
    // The WORKING of before was never counted by this provider: no −1 for it.
    expect(await counts()).toEqual({ COMPLETED: 1 });
  });
});
