import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Attributes, ContextAPI, Span, Tracer, TracerProvider } from '@opentelemetry/api';
import { Observable } from 'rxjs';
import { A2A_MODULE_OPTIONS } from '../a2a-module-definition.js';
import type { A2aModuleOptions } from '../a2a-module.options.js';
import { A2aAuditTrail } from '../audit/audit.trail.js';
import type { StatusOrArtifactEvent } from '../bus/event-bus.js';
import { A2A_INVOCATION, type A2aInvocation } from '../context/a2a-invocation.js';
import type { TaskScope } from '../context/call-context.js';
import type { Message, StreamResponse, Task } from '../protocol/a2a.types.js';
import { A2A_TRACER_NAME, A2aAttributes } from './observability.names.js';
import { OperationTrace } from './operation.trace.js';
import { loadOpenTelemetryApi, type OpenTelemetryApi } from './otel-api.js';
import { SkillRunTrace } from './skill-run.trace.js';
import { TaskMetrics } from './task.metrics.js';

/** SpanKind.SERVER and SpanKind.INTERNAL of `@opentelemetry/api`. */
const SPAN_KIND_SERVER = 1;
const SPAN_KIND_INTERNAL = 0;

const STREAMING_OPERATIONS: ReadonlySet<string> = new Set(['SendStreamingMessage', 'SubscribeToTask']);

/** What a streaming operation's pipeline answers with (the host's StreamingResult). */
interface StreamingAnswer {
  events: Observable<StreamResponse>;
}

/**
 * Tracing, metrics and the audit trail, at the few places every call and every change goes through: each binding's
 * start of an operation (the HTTP pipeline; the gRPC server's processing hooks), the executor's skill runs, and the
 * task writer's commits. It loads `@opentelemetry/api` at bootstrap (module option `observability`); without it,
 * every entry point returns after a null check. With it, spans and instruments are made only once an SDK has
 * registered a provider: until then each entry point costs a provider lookup.
 */
@Injectable()
export class A2aObservability implements OnModuleInit {
  private api: OpenTelemetryApi | undefined;
  private readonly tracingWanted: boolean;
  private readonly metricsWanted: boolean;
  private readonly tracerName: string;
  /** The tracer of the registered provider, remade when another is registered; undefined while none is. */
  private tracerOf: { delegate: TracerProvider; tracer: Tracer | undefined } | undefined;
  /** What the API's proxy delegates to while no SDK has registered a provider. */
  private noopTracerProvider: TracerProvider | undefined;
  private operationKey: symbol | undefined;
  private metrics: TaskMetrics | undefined;
  /** gRPC calls under way, by their invocation: the processing hooks start and end them, the binding's filter fails them. */
  private readonly grpcCalls = new WeakMap<A2aInvocation, OperationTrace>();

  constructor(
    @Inject(A2A_MODULE_OPTIONS) options: A2aModuleOptions,
    private readonly audit: A2aAuditTrail,
  ) {
    this.tracingWanted = options.observability?.tracing !== false;
    this.metricsWanted = options.observability?.metrics !== false;
    this.tracerName = options.observability?.tracerName ?? A2A_TRACER_NAME;
  }

  async onModuleInit(): Promise<void> {
    // The audit trail reads the active trace id through the API too.
    if (this.tracingWanted || this.metricsWanted || this.audit.enabled) this.use(await loadOpenTelemetryApi());
  }

  /** Sets the API tracing and metrics go through (undefined: both off). Bootstrap calls it; tests may too. */
  use(api: OpenTelemetryApi | undefined): void {
    this.api = api;
    this.tracerOf = undefined;
    if (!api) {
      this.metrics = undefined;
      return;
    }
    this.noopTracerProvider = new api.ProxyTracerProvider().getDelegate();
    this.operationKey = api.createContextKey('nestjs-a2a.operation');
    this.metrics = this.metricsWanted ? new TaskMetrics(api, this.tracerName) : undefined;
  }

  // ---- operations ----

  /**
   * Runs one operation's pipeline (HTTP bindings) inside its span: `run` answers the result, or `{ events }` for a
   * stream, whose span (and open-stream count) then lasts until the stream ends.
   */
  operation<T>(invocation: A2aInvocation, run: () => Promise<T>): Promise<T> {
    if (!this.api) return run();
    const trace = this.startOperation(invocation);
    if (!trace) return run();
    return this.api.context.with(trace.context, run).then(
      (result) => {
        const events = (result as Partial<StreamingAnswer> | undefined)?.events;
        if (!(events instanceof Observable)) {
          trace.end();
          return result;
        }
        return { ...result, events: this.traced(events, trace) } as T;
      },
      (error: unknown) => {
        trace.fail(error);
        trace.end();
        throw error;
      },
    );
  }

  /**
   * The gRPC server's processing start hook (Nest's `setOnProcessingStartHook`): the call's span starts, and the
   * handler (`done`: guards, interceptors, the operation) runs in its context.
   */
  grpcCallStarted<T>(context: unknown, done: () => T): T {
    if (!this.api) return done();
    const invocation = invocationOf((context as { request?: unknown } | undefined)?.request);
    const trace = invocation && this.startOperation(invocation);
    if (!trace) return done();
    this.grpcCalls.set(invocation, trace);
    return this.api.context.with(trace.context, done);
  }

  /** The gRPC server's processing end hook: the answer, or the stream's last write, is out. */
  grpcCallEnded(request: unknown): void {
    const invocation = invocationOf(request);
    const trace = invocation && this.grpcCalls.get(invocation);
    if (!trace) return;
    this.grpcCalls.delete(invocation);
    trace.end();
  }

  /** The gRPC binding's exception filter caught `error` for the call whose request is `request`. */
  grpcCallFailed(request: unknown, error: unknown): void {
    const invocation = invocationOf(request);
    if (invocation) this.grpcCalls.get(invocation)?.fail(error);
  }

  // ---- skill runs ----

  /**
   * A skill run begins: its span, a child of the active context (the operation's). Tells the operation's span the
   * task, context and skill it turned out to be about. Undefined when no tracer records.
   */
  skillRunStarted(taskId: string, contextId: string, skillId: string, attempt: number): SkillRunTrace | undefined {
    if (!this.api) return undefined;
    const tracer = this.tracer();
    if (!tracer) return undefined;
    const api = this.api;
    const active = api.context.active();
    (active.getValue(this.operationKey!) as OperationTrace | undefined)?.annotate(taskId, contextId, skillId);
    const span = tracer.startSpan(
      `a2a.skill ${skillId}`,
      {
        kind: SPAN_KIND_INTERNAL,
        attributes: {
          [A2aAttributes.taskId]: taskId,
          [A2aAttributes.contextId]: contextId,
          [A2aAttributes.skillId]: skillId,
          [A2aAttributes.attempt]: attempt,
        },
      },
      active,
    );
    return new SkillRunTrace(api.trace.setSpan(active, span), span);
  }

  /** Runs `work` (the subscription that runs the skill) with the run's span active; as is without one. */
  within<T>(trace: SkillRunTrace | undefined, work: () => T): T {
    return trace ? this.api!.context.with(trace.context, work) : work();
  }

  // ---- commits ----

  /** The store created `task` from `message` and the skill's first event. */
  taskCreated(task: Task, scope: TaskScope, message: Message, first: StatusOrArtifactEvent): void {
    this.metrics?.entered(task.id, task.status.state);
    this.audit.taskCreated(task, scope, message, first);
  }

  /** A follow-up message joined the task. */
  messageReceived(taskId: string, contextId: string, message: Message, scope: TaskScope): void {
    this.audit.messageReceived(taskId, contextId, message, scope);
  }

  /** The store committed `event` (one at a time, in commit order). */
  committed(taskId: string, scope: TaskScope, event: StatusOrArtifactEvent): void {
    if (this.metrics && 'statusUpdate' in event) this.metrics.entered(taskId, event.statusUpdate.status.state);
    this.audit.committed(taskId, scope, event);
  }

  // ---- internals ----

  private startOperation(invocation: A2aInvocation): OperationTrace | undefined {
    const api = this.api!;
    const tracer = this.tracer();
    const closeStream = STREAMING_OPERATIONS.has(invocation.operation)
      ? this.metrics?.streamOpened({
          [A2aAttributes.binding]: invocation.binding,
          [A2aAttributes.operation]: invocation.operation,
        })
      : undefined;
    if (!tracer) return closeStream && new OperationTrace(undefined, closeStream, api.context.active());
    const active = api.context.active();
    // An HTTP or gRPC instrumentation may have made a span of the request already (from the same headers): this one is
    // its child. Otherwise the caller's `traceparent` is the parent.
    const parent = api.trace.getSpan(active) ? active : api.propagation.extract(active, invocation.headers);
    const span: Span = tracer.startSpan(
      `a2a.${invocation.operation}`,
      { kind: SPAN_KIND_SERVER, attributes: operationAttributes(invocation) },
      parent,
    );
    const trace = new OperationTrace(span, closeStream, api.trace.setSpan(parent, span));
    // Reachable from its own context: the skill's run, started in it, annotates it.
    trace.context = trace.context.setValue(this.operationKey!, trace);
    return trace;
  }

  /** The events of a streaming operation, run in its context (the engine starts the skill on subscription), ending its trace. */
  private traced(events: Observable<StreamResponse>, trace: OperationTrace): Observable<StreamResponse> {
    const contexts: ContextAPI = this.api!.context;
    return new Observable<StreamResponse>((subscriber) => {
      const subscription = contexts.with(trace.context, () =>
        events.subscribe({
          next: (event) => subscriber.next(event),
          error: (error: unknown) => {
            trace.fail(error);
            subscriber.error(error);
          },
          complete: () => subscriber.complete(),
        }),
      );
      return () => {
        subscription.unsubscribe();
        trace.end();
      };
    });
  }

  /** The tracer of the registered tracer provider; undefined when tracing is off or no SDK has registered one. */
  private tracer(): Tracer | undefined {
    if (!this.tracingWanted) return undefined;
    const provider = this.api!.trace.getTracerProvider() as TracerProvider & { getDelegate?(): TracerProvider };
    const delegate = provider.getDelegate?.() ?? provider;
    if (this.tracerOf?.delegate !== delegate) {
      this.tracerOf = {
        delegate,
        tracer: delegate === this.noopTracerProvider ? undefined : delegate.getTracer(this.tracerName),
      };
    }
    return this.tracerOf.tracer;
  }
}

function invocationOf(request: unknown): A2aInvocation | undefined {
  return typeof request === 'object' && request !== null
    ? (request as { [A2A_INVOCATION]?: A2aInvocation })[A2A_INVOCATION]
    : undefined;
}

function operationAttributes(invocation: A2aInvocation): Attributes {
  const attributes: Attributes = {
    [A2aAttributes.binding]: invocation.binding,
    [A2aAttributes.operation]: invocation.operation,
  };
  if (invocation.taskId !== undefined) attributes[A2aAttributes.taskId] = invocation.taskId;
  const contextId = (invocation.request.message as { contextId?: unknown } | undefined)?.contextId;
  if (typeof contextId === 'string') attributes[A2aAttributes.contextId] = contextId;
  if (invocation.skillId !== undefined) attributes[A2aAttributes.skillId] = invocation.skillId;
  if (invocation.tenant !== '') attributes[A2aAttributes.tenant] = invocation.tenant;
  return attributes;
}
