import type { Context, Span, Tracer, TracerProvider } from '@opentelemetry/api';
import { A2A_TRACER_NAME, A2aAttributes } from '../observability/observability.names.js';
import { loadOpenTelemetryApi, type OpenTelemetryApi } from '../observability/otel-api.js';
import type { AgentCard, AgentInterface } from '../protocol/a2a.types.js';
import { A2aClientError } from './a2a-client.errors.js';

/** SpanKind.CLIENT and SpanStatusCode.ERROR of `@opentelemetry/api`, which the client never imports at load time. */
const SPAN_KIND_CLIENT = 2;
const SPAN_STATUS_ERROR = 2;

/** Loads `@opentelemetry/api` (or says it is absent); tests give their own. */
export type OpenTelemetryLoader = () => Promise<OpenTelemetryApi | undefined>;

/**
 * The client's side of tracing, through the same lazily loaded `@opentelemetry/api` as the server's (an optional peer,
 * `import()`ed on the first call, once per process): each call carries the active context as W3C `traceparent` /
 * `tracestate` (HTTP headers, gRPC metadata) with the global propagator, and, once an SDK has registered a tracer
 * provider, has a CLIENT span `a2a.client.<Operation>` whose context is the one sent, so the agent's operation span is
 * its child. Without the package every call costs a resolved promise; with it but no provider, a provider lookup.
 */
export class ClientTracing {
  private api: OpenTelemetryApi | undefined;
  private loading: Promise<OpenTelemetryApi | undefined> | undefined;
  /** What the API's proxy delegates to while no SDK has registered a provider. */
  private noopTracerProvider: TracerProvider | undefined;
  private tracerOf: { delegate: TracerProvider; tracer: Tracer | undefined } | undefined;

  constructor(
    private readonly enabled: boolean,
    private readonly cardUrl: string,
    private readonly load: OpenTelemetryLoader = () => loadOpenTelemetryApi(),
    private readonly tracerName = A2A_TRACER_NAME,
  ) {}

  /**
   * A call begins, in the caller's active context (`parent` replaces it). Undefined when tracing is off or the API is
   * not installed; without a registered tracer provider, a trace that only propagates the active context.
   */
  async begin(operation: string, parent?: Context): Promise<ClientCallTrace | undefined> {
    if (!this.enabled) return undefined;
    const api = this.api ?? (await this.loaded());
    if (!api) return undefined;
    const active = parent ?? api.context.active();
    const tracer = this.tracer(api);
    if (!tracer) return new ClientCallTrace(api, undefined, active);
    const span = tracer.startSpan(
      `a2a.client.${operation}`,
      {
        kind: SPAN_KIND_CLIENT,
        attributes: { [A2aAttributes.operation]: operation, [A2aAttributes.agentCardUrl]: this.cardUrl },
      },
      active,
    );
    return new ClientCallTrace(api, span, api.trace.setSpan(active, span));
  }

  private loaded(): Promise<OpenTelemetryApi | undefined> {
    this.loading ??= this.load().then(
      (api) => {
        if (api) this.noopTracerProvider = new api.ProxyTracerProvider().getDelegate();
        return (this.api = api);
      },
      () => undefined,
    );
    return this.loading;
  }

  /** The tracer of the registered tracer provider; undefined while no SDK has registered one. */
  private tracer(api: OpenTelemetryApi): Tracer | undefined {
    const provider = api.trace.getTracerProvider() as TracerProvider & { getDelegate?(): TracerProvider };
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

/**
 * One call as tracing sees it, retries and a stream's reconnections included: the context it sends, and its CLIENT
 * span if a tracer records, with the card's name, the binding and URL of the interface used last, the task and context
 * ids once known, and on failure status ERROR and `a2a.error.kind`. Ends once.
 */
export class ClientCallTrace {
  private ended = false;
  private taskId: string | undefined;

  constructor(
    private readonly api: OpenTelemetryApi,
    private readonly span: Span | undefined,
    /** The context sent to the agent: the span's, or the caller's active one when no tracer records. */
    readonly context: Context,
  ) {}

  /** Writes `traceparent` / `tracestate` of the call's context into `headers` (the global propagator's fields). */
  inject(headers: Record<string, string>): void {
    this.api.propagation.inject(this.context, headers);
  }

  /** The trace and span the call's context names, when it names a valid one. */
  ids(): { traceId: string; spanId: string } | undefined {
    const spanContext = this.api.trace.getSpanContext(this.context);
    return spanContext && this.api.trace.isSpanContextValid(spanContext)
      ? { traceId: spanContext.traceId, spanId: spanContext.spanId }
      : undefined;
  }

  /** An attempt goes to `entry` of `card`. */
  attempt(card: AgentCard, entry: AgentInterface): void {
    this.span?.setAttributes({
      [A2aAttributes.agentName]: card.name,
      [A2aAttributes.binding]: entry.protocolBinding,
      [A2aAttributes.interfaceUrl]: entry.url,
    });
  }

  /** The call turned out to be about this task. */
  task(taskId: string | undefined, contextId: string | undefined): void {
    if (!this.span || taskId === undefined || taskId === '' || taskId === this.taskId) return;
    this.taskId = taskId;
    this.span.setAttribute(A2aAttributes.taskId, taskId);
    if (contextId) this.span.setAttribute(A2aAttributes.contextId, contextId);
  }

  /** Runs `work` with the call's context active (a call the client makes as part of this one is its child). */
  within<T>(work: () => T): T {
    return this.api.context.with(this.context, work);
  }

  /** The call ended: answered, the stream over, or failed with `error`. */
  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    if (!this.span) return;
    if (error !== undefined) {
      this.span.setAttribute(A2aAttributes.errorKind, error instanceof A2aClientError ? error.kind : 'Internal');
      this.span.recordException(error instanceof Error ? error : String(error));
      this.span.setStatus({ code: SPAN_STATUS_ERROR, message: error instanceof Error ? error.message : String(error) });
    }
    this.span.end();
  }
}
