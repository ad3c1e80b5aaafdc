import { Observable } from 'rxjs';
import type {
  AgentCard,
  JsonObject,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
} from '../protocol/a2a.types.js';
import type {
  A2aCallOptions,
  A2aOutgoingMessage,
  A2aSendOptions,
  A2aStreamOptions,
  A2aSubscribeOptions,
} from './a2a-call.options.js';
import { A2aTransportError, isUnauthenticated } from './a2a-client.errors.js';
import { A2aClientMessages } from './a2a-client.messages.js';
import { CLIENT_DEFAULTS, DEFAULT_PREFERRED_TRANSPORTS, type A2aAgentOptions } from './a2a-client.options.js';
import { checkedCardUrl, nonNegative, positive } from './agent-options.checks.js';
import { AgentCardResolver, type ResolvedAgentCard } from './agent-card.resolver.js';
import { ClientAddressGuard } from './client-address.guard.js';
import { ClientCredentials } from './client-credentials.js';
import { CredentialScope } from './credential.scope.js';
import { ClientHttp } from './client-http.js';
import { ClientTracing } from './client-tracing.js';
import { InterfaceCaller } from './interface.caller.js';
import { InterfaceSelector } from './interface.selector.js';
import { ObservedCall } from './observed-call.js';
import { clientAuditSinkOf, OutboundAuditTrail } from './outbound-audit.trail.js';
import {
  asAgentCard,
  asListPushConfigsResponse,
  asListTasksResponse,
  asPushConfig,
  asSendMessageResult,
  asTask,
} from './response.shapes.js';
import { ResumableStreams } from './resumable.stream.js';
import { abortedError, RetryPolicy, sleep } from './retry.policy.js';
import { sendRequestOf } from './send-message.request.js';
import type { ClientMethod, UnaryMethod } from './transports/client.transport.js';
import { TransportFactory } from './transports/transport.factory.js';

export type { A2aCallOptions, A2aOutgoingMessage, A2aSendOptions, A2aSubscribeOptions } from './a2a-call.options.js';

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
 * const answer = await agent.send('Book a flight from Paris to Tokyo'); // a Task, or a Message
 * if ('status' in answer) agent.subscribe(answer.id).subscribe((event) => console.log(event));
 * ```
 */
export class A2aAgentClient {
  /** The card URL in use (the well-known path of an origin). */
  readonly cardUrl: string;
  private readonly http: ClientHttp;
  private readonly cards: AgentCardResolver;
  private readonly transports: TransportFactory;
  private readonly caller: InterfaceCaller;
  private readonly streams: ResumableStreams;
  private readonly credentials: ClientCredentials;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly tracing: ClientTracing;
  private readonly auditTrail: OutboundAuditTrail | undefined;
  private closed = false;

  constructor(options: A2aAgentOptions) {
    this.cardUrl = checkedCardUrl(options.cardUrl);
    const guard = new ClientAddressGuard(options.network);
    const mtls = options.credentials?.mtls;
    const ca = options.tls?.ca;
    this.http = new ClientHttp(
      guard,
      {
        ...(ca ? { ca: ca as string | Buffer | Array<string | Buffer> } : {}),
        ...(mtls ? { cert: mtls.cert, key: mtls.key, passphrase: mtls.passphrase } : {}),
      },
      options.fetch,
    );
    this.retry = new RetryPolicy(options.retry);
    this.timeoutMs = nonNegative('timeoutMs', options.timeoutMs ?? CLIENT_DEFAULTS.timeoutMs);
    const limits = {
      maxResponseBytes: positive(
        'limits.maxResponseBytes',
        options.limits?.maxResponseBytes ?? CLIENT_DEFAULTS.maxResponseBytes,
      ),
      maxEventBytes: positive('limits.maxEventBytes', options.limits?.maxEventBytes ?? CLIENT_DEFAULTS.maxEventBytes),
    };
    this.cards = new AgentCardResolver(this.cardUrl, this.http, {
      maxCardBytes: positive('limits.maxCardBytes', options.limits?.maxCardBytes ?? CLIENT_DEFAULTS.maxCardBytes),
      defaultMaxAgeMs: nonNegative(
        'cardMaxAgeMs.default',
        options.cardMaxAgeMs?.default ?? CLIENT_DEFAULTS.cardMaxAgeMs,
      ),
      maxAgeCapMs: nonNegative('cardMaxAgeMs.max', options.cardMaxAgeMs?.max ?? CLIENT_DEFAULTS.cardMaxAgeCapMs),
      timeoutMs: this.timeoutMs,
      retry: this.retry,
      verification: options.cardVerification,
    });
    const selector = new InterfaceSelector(
      options.preferredTransports ?? DEFAULT_PREFERRED_TRANSPORTS,
      options.interfaceDownMs ?? CLIENT_DEFAULTS.interfaceDownMs,
    );
    this.transports = new TransportFactory(this.http, guard, limits, {
      ...(ca ? { ca: Buffer.from((Array.isArray(ca) ? ca : [ca]).map((pem) => pem.toString()).join('\n')) } : {}),
      ...(mtls ? { cert: Buffer.from(mtls.cert), key: Buffer.from(mtls.key) } : {}),
    });
    const scope = new CredentialScope(
      this.cardUrl,
      options.credentials?.allowedOrigins,
      guard,
      ca !== undefined || mtls !== undefined,
    );
    this.credentials = new ClientCredentials(options.credentials, this.http, scope);
    this.tracing = new ClientTracing(options.tracing !== false, this.cardUrl);
    const sink = clientAuditSinkOf(options.audit);
    this.auditTrail = sink && new OutboundAuditTrail(sink, options.credentials, () => this.cards.cached);
    this.caller = new InterfaceCaller(
      this.cardUrl,
      options,
      this.timeoutMs,
      this.cards,
      selector,
      this.transports,
      this.credentials,
    );
    const client = {
      open: (method: ClientMethod, request: JsonObject) => this.open(method, request),
      getTask: (taskId: string, call: A2aCallOptions) => this.getTask(taskId, call),
    };
    this.streams = new ResumableStreams(client, this.caller, this.credentials, this.retry);
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
  stream(message: string | A2aOutgoingMessage, options: A2aStreamOptions = {}): Observable<StreamResponse> {
    return this.streams.observable('SendStreamingMessage', sendRequestOf(message, options), options);
  }

  /**
   * SubscribeToTask (§3.1.6): the task first, then its events, completing at a terminal state. With `lastEventId`,
   * only the events after it. Breaks are resumed (see {@link A2aSubscribeOptions.resume}).
   */
  subscribe(taskId: string, options: A2aSubscribeOptions = {}): Observable<StreamResponse> {
    return this.streams.observable('SubscribeToTask', { id: taskId }, options);
  }

  /** GetTask (§3.1.3). */
  async getTask(taskId: string, options: A2aCallOptions & { historyLength?: number } = {}): Promise<Task> {
    const request: JsonObject = {
      id: taskId,
      ...(options.historyLength === undefined ? {} : { historyLength: options.historyLength }),
    };
    return this.shaped(asTask(await this.unary('GetTask', request, options, true)), 'GetTask', 'not a Task');
  }

  /** ListTasks (§3.1.4): the caller's tasks, one page. */
  async listTasks(
    request: Omit<ListTasksRequest, 'tenant'> = {},
    options: A2aCallOptions = {},
  ): Promise<ListTasksResponse> {
    return this.shaped(
      asListTasksResponse(await this.unary('ListTasks', { ...request } as JsonObject, options, true)),
      'ListTasks',
      'not a ListTasksResponse',
    );
  }

  /** CancelTask (§3.1.5): the task as the cancel left it. Retried like reads (canceling twice is harmless, spec §3.3.1). */
  async cancelTask(taskId: string, options: A2aCallOptions & { metadata?: JsonObject } = {}): Promise<Task> {
    const request: JsonObject = {
      id: taskId,
      ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
    };
    return this.shaped(asTask(await this.unary('CancelTask', request, options, true)), 'CancelTask', 'not a Task');
  }

  /** CreateTaskPushNotificationConfig (§3.1.7). Retried only when `config.id` is set (the same id replaces). */
  async createPushConfig(
    taskId: string,
    config: Omit<TaskPushNotificationConfig, 'taskId' | 'tenant'>,
    options: A2aCallOptions = {},
  ): Promise<TaskPushNotificationConfig> {
    const request = { ...config, taskId } as unknown as JsonObject;
    const answer = await this.unary(
      'CreateTaskPushNotificationConfig',
      request,
      options,
      config.id !== undefined && config.id !== '',
    );
    return this.shaped(asPushConfig(answer), 'CreateTaskPushNotificationConfig', 'not a TaskPushNotificationConfig');
  }

  /** GetTaskPushNotificationConfig (§3.1.8). */
  async getPushConfig(
    taskId: string,
    configId: string,
    options: A2aCallOptions = {},
  ): Promise<TaskPushNotificationConfig> {
    const answer = await this.unary('GetTaskPushNotificationConfig', { taskId, id: configId }, options, true);
    return this.shaped(asPushConfig(answer), 'GetTaskPushNotificationConfig', 'not a TaskPushNotificationConfig');
  }

  /** ListTaskPushNotificationConfigs (§3.1.9). */
  async listPushConfigs(
    taskId: string,
    page: { pageSize?: number; pageToken?: string } = {},
    options: A2aCallOptions = {},
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    const answer = await this.unary(
      'ListTaskPushNotificationConfigs',
      { taskId, ...page } as JsonObject,
      options,
      true,
    );
    return this.shaped(
      asListPushConfigsResponse(answer),
      'ListTaskPushNotificationConfigs',
      'not a ListTaskPushNotificationConfigsResponse',
    );
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
    const answer = this.shaped(
      asAgentCard(await this.unary('GetExtendedAgentCard', {}, options, true)),
      'GetExtendedAgentCard',
      'not an AgentCard',
    );
    return this.cards.checked(answer);
  }

  /** Closes connections (HTTP keep-alive, gRPC channels). Calls made afterwards fail. */
  async close(): Promise<void> {
    this.closed = true;
    this.transports.close();
    this.http.close();
  }

  // ---- unary calls ----

  private async unary(
    method: UnaryMethod,
    request: JsonObject,
    options: A2aCallOptions,
    idempotent: boolean,
  ): Promise<unknown> {
    const observed = await this.open(method, request);
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

  /** Fails once closed; otherwise the call's trace (its span, the context it sends) and audit, begun in the caller's context. */
  private async open(method: ClientMethod, request: JsonObject): Promise<ObservedCall> {
    this.assertOpen();
    const trace = await this.tracing.begin(method).catch(() => undefined);
    const audit = this.auditTrail?.call(method, request, () => trace?.ids());
    if (!trace && !audit) return ObservedCall.none;
    const observed = new ObservedCall(method, trace, audit);
    const message = request.message as { taskId?: string; contextId?: string } | undefined;
    observed.requested((request.id ?? request.taskId ?? message?.taskId) as string | undefined, message?.contextId);
    return observed;
  }

  private async unaryAttempts(
    method: UnaryMethod,
    request: JsonObject,
    options: A2aCallOptions,
    idempotent: boolean,
    observed: ObservedCall,
  ): Promise<unknown> {
    let refreshedCredentials = false;
    for (let failures = 1; ; failures++) {
      try {
        return await this.caller.unary(method, request, options, observed);
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

  private shaped<T>(value: T | undefined, method: string, why: string): T {
    if (value === undefined)
      throw new A2aTransportError('InvalidResponse', A2aClientMessages.invalidResponse(method, why));
    return value;
  }

  private assertOpen(): void {
    if (this.closed) throw new A2aTransportError('Aborted', A2aClientMessages.aborted('The client is closed'));
  }
}
