import { randomUUID } from 'node:crypto';
import { Observable } from 'rxjs';
import { PROTOCOL_VERSION } from '../a2a.constants.js';
import type {
  AgentCard,
  AgentInterface,
  JsonObject,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageConfiguration,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
} from '../protocol/a2a.types.js';
import { A2aClientOptionsError, A2aProtocolError, A2aTransportError } from './a2a-client.errors.js';
import { A2aClientMessages } from './a2a-client.messages.js';
import { CLIENT_DEFAULTS, DEFAULT_PREFERRED_TRANSPORTS, type A2aAgentOptions } from './a2a-client.options.js';
import { AgentCardResolver, cardUrlOf, type ResolvedAgentCard } from './agent-card.resolver.js';
import { ClientAddressGuard } from './client-address.guard.js';
import { ClientCredentials } from './client-credentials.js';
import { CredentialScope } from './credential.scope.js';
import { ClientHttp } from './client-http.js';
import { ClientTracing } from './client-tracing.js';
import { canFallBack, InterfaceSelector } from './interface.selector.js';
import { ObservedCall } from './observed-call.js';
import { clientAuditSinkOf, OutboundAuditTrail } from './outbound-audit.trail.js';
import {
  asAgentCard,
  asListPushConfigsResponse,
  asListTasksResponse,
  asPushConfig,
  asSendMessageResult,
  asStreamResponse,
  asTask,
  isInterruptedState,
  isTerminalState,
  stateOf,
  taskIdOf,
} from './response.shapes.js';
import { abortedError, RetryPolicy, sleep, withDeadline } from './retry.policy.js';
import { withEventId } from './stream-event.id.js';
import type { ClientMethod, StreamFrame, StreamingMethod, TransportCall, UnaryMethod } from './transports/client.transport.js';
import { TransportFactory } from './transports/transport.factory.js';

/** Options every call takes. */
export interface A2aCallOptions {
  /** Ends the call (a stream: closes it); the call then fails with an `Aborted` A2aTransportError. */
  readonly signal?: AbortSignal;
  /** Per attempt; for streams, until the first event. 0: none. Default the agent's `timeoutMs`. */
  readonly timeoutMs?: number;
  /** Extra headers (gRPC metadata) for this call. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Extensions to activate for this call, besides the agent's. */
  readonly extensions?: readonly string[];
}

/** A message to send: `messageId` (made if absent, and kept across retries) and `role` (ROLE_USER) may be left out. */
export type A2aOutgoingMessage = Omit<Message, 'messageId' | 'role'> & Partial<Pick<Message, 'messageId' | 'role'>>;

/** Options of `send` and `stream`. */
export interface A2aSendOptions extends A2aCallOptions {
  readonly configuration?: SendMessageConfiguration;
  /** The request's `metadata`. */
  readonly metadata?: JsonObject;
}

/** Options of `subscribe` (and of how `stream` continues after a break). */
export interface A2aSubscribeOptions extends A2aCallOptions {
  /** Resume after this event (an `eventIdOf()` of an earlier stream): only the events after it are sent. */
  readonly lastEventId?: string;
  /**
   * Reconnect when the stream breaks (network, Unavailable), from the last event id seen (the HTTP bindings' SSE
   * `id:`), or from the task's current state where there is none (gRPC, agents without ids). Default true.
   */
  readonly resume?: boolean;
}

type StreamOptions = A2aSendOptions & Pick<A2aSubscribeOptions, 'resume' | 'lastEventId'>;

/**
 * A client of one A2A agent (spec §3, §5), over the binding its card and `preferredTransports` agree on: JSON-RPC and
 * HTTP+JSON with node:http behind an SSRF guard, gRPC through `@grpc/grpc-js` loaded on first use. Usable alone
 * (`new A2aAgentClient({ cardUrl })`, e.g. in a script) or through `A2aClientModule`.
 *
 * Every call: resolves the card (cached; revalidated with `If-None-Match`), picks the first interface of the card this
 * client speaks, falls back to the next when a connection is refused, sends `A2A-Version: 1.0`, the interface's
 * `tenant` and the credentials the card's requirements ask for, bounds the attempt with `timeoutMs`, and retries
 * idempotent calls (SendMessage too: the retry carries the same `messageId`, which agents dedupe on) after network
 * errors, timeouts and Unavailable. Errors are {@link A2aClientError}s. With `@opentelemetry/api` installed, every
 * call carries the active trace context (`traceparent`) and, once an SDK registers a tracer provider, has a CLIENT
 * span; with option `audit`, what the agent was delegated and answered is recorded (`direction: 'outbound'`).
 *
 * ```ts
 * const agent = new A2aAgentClient({ cardUrl: 'https://flights.example', credentials: { bearer: () => tokens.get() } });
 * const task = await agent.send('Book a flight from Paris to Tokyo');
 * agent.subscribe(task.id).subscribe((event) => console.log(event));
 * ```
 */
export class A2aAgentClient {
  /** The card URL in use (the well-known path of an origin). */
  readonly cardUrl: string;
  private readonly http: ClientHttp;
  private readonly cards: AgentCardResolver;
  private readonly selector: InterfaceSelector;
  private readonly transports: TransportFactory;
  private readonly credentials: ClientCredentials;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly tracing: ClientTracing;
  private readonly auditTrail: OutboundAuditTrail | undefined;
  private closed = false;

  constructor(private readonly options: A2aAgentOptions) {
    this.cardUrl = checkedCardUrl(options.cardUrl);
    const guard = new ClientAddressGuard(options.network);
    const mtls = options.credentials?.mtls;
    const ca = options.tls?.ca;
    this.http = new ClientHttp(guard, { ...(ca ? { ca: ca as string | Buffer | Array<string | Buffer> } : {}), ...(mtls ? { cert: mtls.cert, key: mtls.key, passphrase: mtls.passphrase } : {}) }, options.fetch);
    this.retry = new RetryPolicy(options.retry);
    this.timeoutMs = nonNegative('timeoutMs', options.timeoutMs ?? CLIENT_DEFAULTS.timeoutMs);
    const limits = {
      maxResponseBytes: positive('limits.maxResponseBytes', options.limits?.maxResponseBytes ?? CLIENT_DEFAULTS.maxResponseBytes),
      maxEventBytes: positive('limits.maxEventBytes', options.limits?.maxEventBytes ?? CLIENT_DEFAULTS.maxEventBytes),
    };
    this.cards = new AgentCardResolver(this.cardUrl, this.http, {
      maxCardBytes: positive('limits.maxCardBytes', options.limits?.maxCardBytes ?? CLIENT_DEFAULTS.maxCardBytes),
      defaultMaxAgeMs: nonNegative('cardMaxAgeMs.default', options.cardMaxAgeMs?.default ?? CLIENT_DEFAULTS.cardMaxAgeMs),
      maxAgeCapMs: nonNegative('cardMaxAgeMs.max', options.cardMaxAgeMs?.max ?? CLIENT_DEFAULTS.cardMaxAgeCapMs),
      timeoutMs: this.timeoutMs,
      retry: this.retry,
      verification: options.cardVerification,
    });
    this.selector = new InterfaceSelector(options.preferredTransports ?? DEFAULT_PREFERRED_TRANSPORTS, options.interfaceDownMs ?? CLIENT_DEFAULTS.interfaceDownMs);
    this.transports = new TransportFactory(this.http, guard, limits, {
      ...(ca ? { ca: Buffer.from((Array.isArray(ca) ? ca : [ca]).map((pem) => pem.toString()).join('\n')) } : {}),
      ...(mtls ? { cert: Buffer.from(mtls.cert), key: Buffer.from(mtls.key) } : {}),
    });
    const scope = new CredentialScope(this.cardUrl, options.credentials?.allowedOrigins, guard, ca !== undefined || mtls !== undefined);
    this.credentials = new ClientCredentials(options.credentials, this.http, scope);
    this.tracing = new ClientTracing(options.tracing !== false, this.cardUrl);
    const sink = clientAuditSinkOf(options.audit);
    this.auditTrail = sink && new OutboundAuditTrail(sink, options.credentials, () => this.cards.cached);
  }

  /** The agent's public card: cached for its max-age, then revalidated (a 304 keeps it); `refresh` asks now. */
  async card(options: { refresh?: boolean; signal?: AbortSignal } = {}): Promise<AgentCard> {
    return (await this.resolveCard(options)).card;
  }

  /** The card with how it was obtained: ETag, expiry, `source` (`network`, `not-modified`, `cache`, `stale`), verification. */
  resolveCard(options: { refresh?: boolean; signal?: AbortSignal } = {}): Promise<ResolvedAgentCard> {
    this.assertOpen();
    return this.cards.resolve(options);
  }

  /** SendMessage (§3.1.1): the Task (blocking by default, spec §3.2.2) or the agent's direct Message. */
  async send(message: string | A2aOutgoingMessage, options: A2aSendOptions = {}): Promise<Task | Message> {
    const request = sendRequestOf(message, options);
    const result = await this.unary('SendMessage', request, options, true);
    return this.shaped(asSendMessageResult(result), 'SendMessage', 'neither exactly one task nor one message');
  }

  /**
   * SendStreamingMessage (§3.1.2): the events of the task (or the one Message), completing when the agent closes the
   * stream. A stream that breaks once a task exists continues as SubscribeToTask from the last event id (HTTP) and
   * completes at a terminal or interrupted state; before any event, the send is retried with the same messageId.
   */
  stream(message: string | A2aOutgoingMessage, options: StreamOptions = {}): Observable<StreamResponse> {
    return this.streamOf('SendStreamingMessage', sendRequestOf(message, options), options);
  }

  /**
   * SubscribeToTask (§3.1.6): the task first, then its events, completing at a terminal state. With `lastEventId`,
   * only the events after it. Breaks are resumed (see {@link A2aSubscribeOptions.resume}).
   */
  subscribe(taskId: string, options: A2aSubscribeOptions = {}): Observable<StreamResponse> {
    return this.streamOf('SubscribeToTask', { id: taskId }, options);
  }

  /** GetTask (§3.1.3). */
  async getTask(taskId: string, options: A2aCallOptions & { historyLength?: number } = {}): Promise<Task> {
    const request: JsonObject = { id: taskId, ...(options.historyLength === undefined ? {} : { historyLength: options.historyLength }) };
    return this.shaped(asTask(await this.unary('GetTask', request, options, true)), 'GetTask', 'not a Task');
  }

  /** ListTasks (§3.1.4): the caller's tasks, one page. */
  async listTasks(request: Omit<ListTasksRequest, 'tenant'> = {}, options: A2aCallOptions = {}): Promise<ListTasksResponse> {
    return this.shaped(asListTasksResponse(await this.unary('ListTasks', { ...request } as JsonObject, options, true)), 'ListTasks', 'not a ListTasksResponse');
  }

  /** CancelTask (§3.1.5): the task as the cancel left it. Retried like reads (canceling twice is harmless, spec §3.3.1). */
  async cancelTask(taskId: string, options: A2aCallOptions & { metadata?: JsonObject } = {}): Promise<Task> {
    const request: JsonObject = { id: taskId, ...(options.metadata === undefined ? {} : { metadata: options.metadata }) };
    return this.shaped(asTask(await this.unary('CancelTask', request, options, true)), 'CancelTask', 'not a Task');
  }

  /** CreateTaskPushNotificationConfig (§3.1.7). Retried only when `config.id` is set (the same id replaces). */
  async createPushConfig(taskId: string, config: Omit<TaskPushNotificationConfig, 'taskId' | 'tenant'>, options: A2aCallOptions = {}): Promise<TaskPushNotificationConfig> {
    const request = { ...config, taskId } as unknown as JsonObject;
    const answer = await this.unary('CreateTaskPushNotificationConfig', request, options, config.id !== undefined && config.id !== '');
    return this.shaped(asPushConfig(answer), 'CreateTaskPushNotificationConfig', 'not a TaskPushNotificationConfig');
  }

  /** GetTaskPushNotificationConfig (§3.1.8). */
  async getPushConfig(taskId: string, configId: string, options: A2aCallOptions = {}): Promise<TaskPushNotificationConfig> {
    const answer = await this.unary('GetTaskPushNotificationConfig', { taskId, id: configId }, options, true);
    return this.shaped(asPushConfig(answer), 'GetTaskPushNotificationConfig', 'not a TaskPushNotificationConfig');
  }

  /** ListTaskPushNotificationConfigs (§3.1.9). */
  async listPushConfigs(taskId: string, page: { pageSize?: number; pageToken?: string } = {}, options: A2aCallOptions = {}): Promise<ListTaskPushNotificationConfigsResponse> {
    const answer = await this.unary('ListTaskPushNotificationConfigs', { taskId, ...page } as JsonObject, options, true);
    return this.shaped(asListPushConfigsResponse(answer), 'ListTaskPushNotificationConfigs', 'not a ListTaskPushNotificationConfigsResponse');
  }

  /** DeleteTaskPushNotificationConfig (§3.1.10); idempotent. */
  async deletePushConfig(taskId: string, configId: string, options: A2aCallOptions = {}): Promise<void> {
    await this.unary('DeleteTaskPushNotificationConfig', { taskId, id: configId }, options, true);
  }

  /**
   * GetExtendedAgentCard (§3.1.11): the card this caller may see (credentials needed). Checked like the public card,
   * and verified against the pinned keys when there are any.
   */
  async getExtendedCard(options: A2aCallOptions = {}): Promise<AgentCard> {
    const answer = this.shaped(asAgentCard(await this.unary('GetExtendedAgentCard', {}, options, true)), 'GetExtendedAgentCard', 'not an AgentCard');
    return this.cards.checked(answer);
  }

  /** Closes connections (HTTP keep-alive, gRPC channels). Calls made afterwards fail. */
  async close(): Promise<void> {
    this.closed = true;
    this.transports.close();
    this.http.close();
  }

  // ---- unary calls ----

  private async unary(method: UnaryMethod, request: JsonObject, options: A2aCallOptions, idempotent: boolean): Promise<unknown> {
    this.assertOpen();
    const observed = await this.observe(method, request);
    try {
      const answer = await this.unaryAttempts(method, request, options, idempotent, observed);
      observed.answered(answer);
      observed.end();
      return answer;
    } catch (error) {
      observed.end(error);
      throw error;
    }
  }

  /** The call's trace (its span, the context it sends) and audit, begun in the caller's context. */
  private async observe(method: ClientMethod, request: JsonObject): Promise<ObservedCall> {
    const trace = await this.tracing.begin(method).catch(() => undefined);
    const audit = this.auditTrail?.call(method, request, () => trace?.ids());
    if (!trace && !audit) return ObservedCall.none;
    const observed = new ObservedCall(method, trace, audit);
    const message = request.message as { taskId?: string; contextId?: string } | undefined;
    observed.requested((request.id ?? request.taskId ?? message?.taskId) as string | undefined, message?.contextId);
    return observed;
  }

  private async unaryAttempts(method: UnaryMethod, request: JsonObject, options: A2aCallOptions, idempotent: boolean, observed: ObservedCall): Promise<unknown> {
    let refreshedCredentials = false;
    for (let failures = 1; ; failures++) {
      try {
        return await this.onSomeInterface(method, options, (resolved, entry) =>
          withDeadline(method, options.timeoutMs ?? this.timeoutMs, options.signal, async (signal) => {
            const call = await this.callFor(resolved, entry, options, undefined, signal, observed);
            const transport = await this.transports.transportFor(entry);
            return transport.unary(method, this.withTenant(request, entry), call);
          }),
        );
      } catch (error) {
        // A 401 when a new credential can be had (a token source): once, at once, whatever the operation (nothing ran).
        if (!refreshedCredentials && isUnauthenticated(error) && this.credentials.invalidate()) {
          refreshedCredentials = true;
          failures--;
          continue;
        }
        if (!idempotent || !this.retry.shouldRetry(error, failures)) throw error;
        await sleep(this.retry.delayMs(failures, error), options.signal).catch((reason: unknown) => {
          throw abortedError(method, reason);
        });
      }
    }
  }

  /**
   * Runs `attempt` on the card's interfaces in order, going to the next only when nothing reached the agent (see
   * `canFallBack`); an interface that worked is marked up again, one that did not is passed over for a while.
   */
  private async onSomeInterface<T>(method: string, options: A2aCallOptions, attempt: (resolved: ResolvedAgentCard, entry: AgentInterface) => Promise<T>): Promise<T> {
    const resolved = await this.cards.resolve({ signal: options.signal });
    let first: unknown;
    for (const entry of this.selector.candidates(resolved.card, this.cardUrl)) {
      try {
        const result = await attempt(resolved, entry);
        this.selector.markUp(entry);
        return result;
      } catch (error) {
        if (!canFallBack(error) || options.signal?.aborted) throw error;
        this.selector.markDown(entry);
        first ??= error;
      }
    }
    throw first ?? new A2aTransportError('Network', A2aClientMessages.network(method, 'no interface could be reached'));
  }

  /**
   * The call's trace context (`traceparent`, `tracestate`), service parameters (spec §3.2.6, §3.6, §4.6), the agent's
   * and the call's headers, and the credentials the card asks for (where the options allow them).
   */
  private async callFor(
    { card, verification }: ResolvedAgentCard,
    entry: AgentInterface,
    options: A2aCallOptions,
    lastEventId: string | undefined,
    signal: AbortSignal,
    observed: ObservedCall,
  ): Promise<TransportCall> {
    observed.attempt(card, entry, this.options.tenant ?? entry.tenant);
    const credentials = await this.credentials.forCall(card, entry, verification !== undefined, signal);
    const extensions = [...(this.options.extensions ?? []), ...(options.extensions ?? [])];
    const headers: Record<string, string> = {};
    // First, so headers the options set explicitly win.
    observed.inject(headers);
    const put = (source: Readonly<Record<string, string>> | undefined) => {
      for (const [name, value] of Object.entries(source ?? {})) headers[name.toLowerCase()] = value;
    };
    put(this.options.headers);
    put(options.headers);
    put(credentials.headers);
    headers['a2a-version'] = PROTOCOL_VERSION;
    if (extensions.length > 0) headers['a2a-extensions'] = [...new Set(extensions)].join(',');
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    return { signal, headers, query: credentials.query };
  }

  /** The request with the tenant of the interface (spec §8.3.2), or the one the options set. */
  private withTenant(request: JsonObject, entry: AgentInterface): JsonObject {
    const tenant = this.options.tenant ?? entry.tenant;
    return tenant ? { ...request, tenant } : request;
  }

  // ---- streams ----

  /**
   * A stream as an Observable: each subscription makes its own call; unsubscribing ends it. Breaks are retried (see
   * `subscribe`); the Observable errors with the call's A2aClientError and completes when the agent ends the stream.
   */
  private streamOf(method: StreamingMethod, request: JsonObject, options: StreamOptions): Observable<StreamResponse> {
    return new Observable<StreamResponse>((subscriber) => {
      const unsubscribed = new AbortController();
      const signal = options.signal ? AbortSignal.any([options.signal, unsubscribed.signal]) : unsubscribed.signal;
      this.runStream(method, request, options, signal, (event) => subscriber.next(event)).then(
        () => subscriber.complete(),
        (error: unknown) => {
          if (unsubscribed.signal.aborted) return;
          subscriber.error(options.signal?.aborted ? abortedError(method, options.signal.reason) : error);
        },
      );
      return () => unsubscribed.abort(abortedError(method, 'unsubscribed'));
    });
  }

  private async runStream(method: StreamingMethod, request: JsonObject, options: StreamOptions, signal: AbortSignal, emit: (event: StreamResponse) => void): Promise<void> {
    this.assertOpen();
    const observed = await this.observe(method, request);
    try {
      await this.streamEvents(method, request, options, signal, observed, (event) => {
        observed.event(event);
        emit(event);
      });
      observed.end();
    } catch (error) {
      // Unsubscribing is how a reader leaves a stream, not a failure of the call.
      observed.end(signal.aborted && !options.signal?.aborted ? undefined : error);
      throw error;
    }
  }

  private async streamEvents(
    method: StreamingMethod,
    request: JsonObject,
    options: StreamOptions,
    signal: AbortSignal,
    observed: ObservedCall,
    emit: (event: StreamResponse) => void,
  ): Promise<void> {
    const resume = options.resume !== false;
    let current: { method: StreamingMethod; request: JsonObject } = { method, request };
    let lastEventId = options.lastEventId;
    let taskId: string | undefined = method === 'SubscribeToTask' ? (request.id as string) : undefined;
    let sawMessage = false;
    let reconnecting = false;
    /** Set once a broken SendStreamingMessage goes on as SubscribeToTask: it then ends where the send stream would have. */
    let continuingSend = false;
    let refreshedCredentials = false;
    for (let failures = 1; ; ) {
      try {
        for await (const frame of this.streamAttempt(current.method, current.request, options, lastEventId, signal, observed)) {
          const response = asStreamResponse(frame.response);
          if (!response) throw new A2aTransportError('InvalidResponse', A2aClientMessages.invalidResponse(current.method, 'an event is not a StreamResponse'));
          failures = 1;
          if (frame.id !== undefined) lastEventId = frame.id;
          taskId ??= taskIdOf(response);
          if ('message' in response && response.message) sawMessage = true;
          emit(withEventId(response, frame.id));
          const state = stateOf(response);
          if (continuingSend && (isTerminalState(state) || isInterruptedState(state))) return;
        }
        return;
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (!refreshedCredentials && isUnauthenticated(error) && this.credentials.invalidate()) {
          refreshedCredentials = true;
          continue;
        }
        // Reconnecting without an event id to a task that ended meanwhile is refused (spec §3.1.6): its final state ends the stream.
        if (reconnecting && current.method === 'SubscribeToTask' && taskId !== undefined && error instanceof A2aProtocolError && error.kind === 'UnsupportedOperation') {
          const task = await observed.within(() => this.getTask(taskId!, { signal, timeoutMs: options.timeoutMs })).catch(() => undefined);
          if (task && isTerminalState(task.status.state)) return emit({ task });
        }
        if (!resume || sawMessage || !this.retry.shouldRetry(error, failures)) throw error;
        await sleep(this.retry.delayMs(failures, error), signal).catch(() => {
          throw signal.reason ?? error;
        });
        failures++;
        reconnecting = true;
        if (current.method === 'SendStreamingMessage' && taskId !== undefined) {
          continuingSend = true;
          current = { method: 'SubscribeToTask', request: { id: taskId } };
        }
      }
    }
  }

  /**
   * One attempt of a stream on the card's interfaces: falls back to the next interface while nothing reached the
   * agent; `timeoutMs` bounds the wait for the first event, except when resuming from an event id (an agent may rightly
   * have nothing to send yet).
   */
  private async *streamAttempt(
    method: StreamingMethod,
    request: JsonObject,
    options: A2aCallOptions,
    lastEventId: string | undefined,
    signal: AbortSignal,
    observed: ObservedCall,
  ): AsyncGenerator<StreamFrame> {
    const resolved = await this.cards.resolve({ signal });
    const timeoutMs = lastEventId === undefined ? (options.timeoutMs ?? this.timeoutMs) : 0;
    let first: unknown;
    for (const entry of this.selector.candidates(resolved.card, this.cardUrl)) {
      const attempt = new AbortController();
      const onAbort = () => attempt.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      const timer = timeoutMs > 0 ? setTimeout(() => attempt.abort(new A2aTransportError('Timeout', A2aClientMessages.timeout(method, timeoutMs))), timeoutMs) : undefined;
      let started = false;
      try {
        const call = await this.callFor(resolved, entry, options, lastEventId, attempt.signal, observed);
        const transport = await this.transports.transportFor(entry);
        for await (const frame of transport.stream(method, this.withTenant(request, entry), call)) {
          if (!started) {
            started = true;
            clearTimeout(timer);
            this.selector.markUp(entry);
          }
          yield frame;
        }
        return;
      } catch (caught) {
        const error = attempt.signal.aborted ? attempt.signal.reason : caught;
        if (started || signal.aborted || !canFallBack(error)) throw error;
        this.selector.markDown(entry);
        first ??= error;
      } finally {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        attempt.abort();
      }
    }
    throw first ?? new A2aTransportError('Network', A2aClientMessages.network(method, 'no interface could be reached'));
  }

  private shaped<T>(value: T | undefined, method: string, why: string): T {
    if (value === undefined) throw new A2aTransportError('InvalidResponse', A2aClientMessages.invalidResponse(method, why));
    return value;
  }

  private assertOpen(): void {
    if (this.closed) throw new A2aTransportError('Aborted', A2aClientMessages.aborted('The client is closed'));
  }
}

function isUnauthenticated(error: unknown): boolean {
  return error instanceof A2aProtocolError && error.kind === 'Unauthenticated';
}

/** SendMessageRequest of `send` and `stream`: a string is one text part; a missing messageId is made once, here. */
function sendRequestOf(message: string | A2aOutgoingMessage, options: A2aSendOptions): JsonObject {
  const given = typeof message === 'string' ? { parts: [{ text: message }] } : message;
  const full: Message = { ...given, messageId: given.messageId || randomUUID(), role: given.role ?? 'ROLE_USER' } as Message;
  return {
    message: full as unknown as JsonObject,
    ...(options.configuration === undefined ? {} : { configuration: options.configuration as unknown as JsonObject }),
    ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
  };
}

function checkedCardUrl(cardUrl: string): string {
  let url: URL;
  try {
    url = new URL(cardUrlOf(cardUrl));
  } catch {
    throw new A2aClientOptionsError(A2aClientMessages.invalidCardUrl(String(cardUrl)));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new A2aClientOptionsError(A2aClientMessages.invalidCardUrl(cardUrl));
  return url.href;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new A2aClientOptionsError(A2aClientMessages.invalidOption(name, 'a positive number'));
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new A2aClientOptionsError(A2aClientMessages.invalidOption(name, 'a number ≥ 0'));
  return value;
}

