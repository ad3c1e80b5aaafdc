import { PROTOCOL_VERSION } from '../a2a.constants.js';
import type { AgentInterface, JsonObject } from '../protocol/a2a.types.js';
import type { A2aCallOptions } from './a2a-call.options.js';
import { A2aTransportError } from './a2a-client.errors.js';
import { A2aClientMessages } from './a2a-client.messages.js';
import type { A2aAgentOptions } from './a2a-client.options.js';
import type { AgentCardResolver, ResolvedAgentCard } from './agent-card.resolver.js';
import type { ClientCredentials } from './client-credentials.js';
import { canFallBack, type InterfaceSelector } from './interface.selector.js';
import type { ObservedCall } from './observed-call.js';
import { withDeadline } from './retry.policy.js';
import type { StreamFrame, StreamingMethod, TransportCall, UnaryMethod } from './transports/client.transport.js';
import type { TransportFactory } from './transports/transport.factory.js';

/**
 * One attempt of a call on the card's interfaces, in the order the selector gives: the next interface is tried only
 * when nothing reached the agent (see `canFallBack`); an interface that worked is marked up again, one that did not
 * is passed over for a while. Retries across attempts are the caller's.
 */
export class InterfaceCaller {
  constructor(
    private readonly cardUrl: string,
    private readonly options: A2aAgentOptions,
    private readonly timeoutMs: number,
    private readonly cards: AgentCardResolver,
    private readonly selector: InterfaceSelector,
    private readonly transports: TransportFactory,
    private readonly credentials: ClientCredentials,
  ) {}

  /** One attempt of a unary call, bounded by `timeoutMs` on each interface. */
  unary(method: UnaryMethod, request: JsonObject, options: A2aCallOptions, observed: ObservedCall): Promise<unknown> {
    return this.onSomeInterface(method, options, (resolved, entry) =>
      withDeadline(method, options.timeoutMs ?? this.timeoutMs, options.signal, async (signal) => {
        const call = await this.callFor(resolved, entry, options, undefined, signal, observed);
        const transport = await this.transports.transportFor(entry);
        return transport.unary(method, this.withTenant(request, entry), call);
      }),
    );
  }

  /**
   * One attempt of a stream: falls back to the next interface while nothing reached the agent; `timeoutMs` bounds the
   * wait for the first event, except when resuming from an event id (an agent may rightly have nothing to send yet).
   */
  async *stream(
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
      const timer =
        timeoutMs > 0
          ? setTimeout(
              () => attempt.abort(new A2aTransportError('Timeout', A2aClientMessages.timeout(method, timeoutMs))),
              timeoutMs,
            )
          : undefined;
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

  private async onSomeInterface<T>(
    method: string,
    options: A2aCallOptions,
    attempt: (resolved: ResolvedAgentCard, entry: AgentInterface) => Promise<T>,
  ): Promise<T> {
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
}
