import type { ProtocolBinding } from '../../protocol/a2a.types.js';
import { A2aTransportError, type A2aClientError } from '../a2a-client.errors.js';
import { A2aClientMessages } from '../a2a-client.messages.js';
import { networkError, readJson, type ClientHttp, type ClientHttpRequest } from '../client-http.js';
import { retryAfterMsOf, type ErrorOrigin } from '../protocol-error.reader.js';
import { readSse, SseEventTooLargeError, type SseEvent } from '../sse.reader.js';
import type { TransportCall, TransportLimits } from './client.transport.js';

/** What the two HTTP bindings share: sending with the call's headers and query, reading bounded JSON and SSE. */
export class HttpExchange {
  constructor(
    readonly binding: ProtocolBinding,
    private readonly http: ClientHttp,
    readonly limits: TransportLimits,
  ) {}

  /** Sends `request` to `url` plus the call's query parameters; resolves at the response headers. */
  send(url: URL, request: Omit<ClientHttpRequest, 'signal'>, call: TransportCall): Promise<Response> {
    const target = new URL(url.href);
    for (const [name, value] of Object.entries(call.query)) target.searchParams.append(name, value);
    const secretQuery = Object.keys(call.query);
    return this.http.fetch(
      target,
      { ...request, headers: { ...call.headers, ...request.headers }, signal: call.signal, secretQuery },
      { binding: this.binding, url: url.href },
    );
  }

  /** The body as JSON, at most `maxResponseBytes`. */
  json(response: Response, what: string, url: string): Promise<unknown> {
    return readJson(response, this.limits.maxResponseBytes, what, { binding: this.binding, url });
  }

  /** `Retry-After` and `WWW-Authenticate` of an error answer. */
  origin(response: Response, url: string): ErrorOrigin {
    const challenges = response.headers.get('www-authenticate');
    return {
      binding: this.binding,
      url,
      retryAfterMs: retryAfterMsOf(response.headers.get('retry-after')),
      ...(challenges ? { challenges: [challenges] } : {}),
    };
  }

  /** The SSE events of a `text/event-stream` body; a broken connection or an oversized event is an A2aClientError. */
  async *events(response: Response, what: string, url: string): AsyncGenerator<SseEvent> {
    if (!response.body) return;
    try {
      yield* readSse(response.body, this.limits.maxEventBytes);
    } catch (error) {
      throw this.streamError(error, what, url);
    }
  }

  invalid(what: string, why: string, url: string, cause?: unknown): A2aTransportError {
    return new A2aTransportError('InvalidResponse', A2aClientMessages.invalidResponse(what, why), {
      binding: this.binding,
      url,
      cause,
    });
  }

  private streamError(error: unknown, what: string, url: string): A2aClientError {
    if (error instanceof SseEventTooLargeError) return this.invalid(what, error.message, url, error);
    return networkError(error, what, { binding: this.binding, url });
  }
}

/** Whether the response is an SSE stream. */
export function isEventStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
}

/** Parses one event's data as JSON. */
export function parseEventData(exchange: HttpExchange, event: SseEvent, what: string, url: string): unknown {
  try {
    return JSON.parse(event.data);
  } catch (error) {
    throw exchange.invalid(what, 'a stream event is not JSON', url, error);
  }
}
