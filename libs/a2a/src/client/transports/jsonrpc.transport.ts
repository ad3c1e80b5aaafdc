import type { JsonObject, StreamResponse } from '../../protocol/a2a.types.js';
import type { ClientHttp } from '../client-http.js';
import { jsonRpcProtocolError, restProtocolError } from '../protocol-error.reader.js';
import type {
  ClientTransport,
  StreamFrame,
  StreamingMethod,
  TransportCall,
  TransportLimits,
  UnaryMethod,
} from './client.transport.js';
import { HttpExchange, isEventStream, parseEventData } from './http-exchange.js';

/**
 * The JSON-RPC 2.0 binding (§9): one POST per call to the interface URL, `application/json`, the request message as
 * `params` (with the interface's `tenant`), the response message as `result`. Streams are SSE whose `data:` are
 * JSON-RPC responses (§9.4.2); a mid-stream error is one whose envelope carries `error`.
 */
export class JsonRpcTransport implements ClientTransport {
  readonly binding = 'JSONRPC';
  private readonly exchange: HttpExchange;
  private readonly endpoint: URL;
  private nextId = 1;

  constructor(
    readonly url: string,
    http: ClientHttp,
    limits: TransportLimits,
  ) {
    this.endpoint = new URL(url);
    this.exchange = new HttpExchange('JSONRPC', http, limits);
  }

  async unary(method: UnaryMethod, request: JsonObject, call: TransportCall): Promise<unknown> {
    const id = this.nextId++;
    const response = await this.post(method, id, request, 'application/json', call);
    return this.result(await this.body(response, method), id, response, method);
  }

  async *stream(method: StreamingMethod, request: JsonObject, call: TransportCall): AsyncGenerator<StreamFrame> {
    const id = this.nextId++;
    const response = await this.post(method, id, request, 'text/event-stream', call);
    // An error known before the first event is an ordinary JSON-RPC answer.
    if (!isEventStream(response)) {
      this.result(await this.body(response, method), id, response, method);
      throw this.exchange.invalid(
        method,
        `a stream was expected, got ${response.headers.get('content-type') ?? 'no content type'}`,
        this.url,
      );
    }
    for await (const event of this.exchange.events(response, method, this.url)) {
      const result = this.result(parseEventData(this.exchange, event, method, this.url), id, response, method);
      yield { response: result as StreamResponse, ...(event.id === undefined ? {} : { id: event.id }) };
    }
  }

  close(): void {
    // The HTTP stack is the client's, closed with it.
  }

  /** The JSON body; a non-2xx answer whose body is not JSON reads as nothing, so its HTTP status speaks. */
  private body(response: Response, method: string): Promise<unknown> {
    const body = this.exchange.json(response, method, this.url);
    return response.ok ? body : body.catch(() => undefined);
  }

  private post(method: string, id: number, params: JsonObject, accept: string, call: TransportCall): Promise<Response> {
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    return this.exchange.send(
      this.endpoint,
      { method: 'POST', headers: { 'content-type': 'application/json', accept }, body },
      call,
    );
  }

  /** The `result` of a JSON-RPC response with our id; its `error` as an A2aProtocolError. */
  private result(body: unknown, id: number, response: Response, method: string): unknown {
    const envelope =
      typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
    if (envelope && 'error' in envelope)
      throw jsonRpcProtocolError(envelope.error, response.status, this.exchange.origin(response, this.url));
    // Not a JSON-RPC answer at all: a proxy's or a framework's error page; its HTTP status says what it can.
    if (!envelope || envelope.jsonrpc !== '2.0') {
      if (!response.ok) throw restProtocolError(undefined, response.status, this.exchange.origin(response, this.url));
      throw this.exchange.invalid(method, 'not a JSON-RPC 2.0 response', this.url);
    }
    if (envelope.id !== id)
      throw this.exchange.invalid(
        method,
        `the response id ${JSON.stringify(envelope.id)} is not the request's (${id})`,
        this.url,
      );
    if (!('result' in envelope))
      throw this.exchange.invalid(method, 'the response has neither result nor error', this.url);
    return envelope.result;
  }
}
