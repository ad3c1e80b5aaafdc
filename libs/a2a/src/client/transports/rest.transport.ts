import { A2A_JSON_MEDIA_TYPE } from '../../a2a.constants.js';
import type { JsonObject, JsonValue, StreamResponse } from '../../protocol/a2a.types.js';
import type { ClientHttp } from '../client-http.js';
import { restProtocolError } from '../protocol-error.reader.js';
import type {
  ClientMethod,
  ClientTransport,
  StreamFrame,
  StreamingMethod,
  TransportCall,
  TransportLimits,
  UnaryMethod,
} from './client.transport.js';
import { HttpExchange, isEventStream, parseEventData } from './http-exchange.js';

/** One call on the HTTP+JSON binding: verb, path below the interface URL, query and body. */
interface RestCall {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly query?: Record<string, JsonValue | undefined>;
  readonly body?: JsonObject;
}

const LIST_TASKS_QUERY = [
  'contextId',
  'status',
  'pageSize',
  'pageToken',
  'historyLength',
  'statusTimestampAfter',
  'includeArtifacts',
] as const;

/**
 * The HTTP+JSON binding (§11): the routes of spec §5.3 below the interface URL, each under `/{tenant}` when the
 * interface has one; POST bodies are the request message without the fields the path carries, GET parameters go in
 * the query (§11.5); answers are the bare response message, or a `google.rpc.Status`. SubscribeToTask is POSTed, as
 * the prose says (spec §11.3.2). Streams are SSE of bare StreamResponses; `event: error` carries a mid-stream Status.
 */
export class RestTransport implements ClientTransport {
  readonly binding = 'HTTP+JSON';
  private readonly exchange: HttpExchange;
  private readonly base: string;

  constructor(
    readonly url: string,
    http: ClientHttp,
    limits: TransportLimits,
  ) {
    this.base = url.replace(/\/+$/, '');
    this.exchange = new HttpExchange('HTTP+JSON', http, limits);
  }

  async unary(method: UnaryMethod, request: JsonObject, call: TransportCall): Promise<unknown> {
    const rest = restCallOf(method, request);
    const response = await this.send(rest, request, A2A_JSON_MEDIA_TYPE, call);
    if (!response.ok) throw await this.failure(response, method);
    const body = await this.exchange.json(response, method, this.url);
    // DeleteTaskPushNotificationConfig answers google.protobuf.Empty, which some servers send as no body (204).
    return body ?? {};
  }

  async *stream(method: StreamingMethod, request: JsonObject, call: TransportCall): AsyncGenerator<StreamFrame> {
    const rest = restCallOf(method, request);
    const response = await this.send(rest, request, 'text/event-stream', call);
    if (!response.ok) throw await this.failure(response, method);
    if (!isEventStream(response))
      throw this.exchange.invalid(
        method,
        `a stream was expected, got ${response.headers.get('content-type') ?? 'no content type'}`,
        this.url,
      );
    for await (const event of this.exchange.events(response, method, this.url)) {
      const data = parseEventData(this.exchange, event, method, this.url);
      if (event.event === 'error') {
        const code = (data as { error?: { code?: unknown } } | null)?.error?.code;
        throw restProtocolError(data, typeof code === 'number' ? code : 500, this.exchange.origin(response, this.url));
      }
      yield { response: data as StreamResponse, ...(event.id === undefined ? {} : { id: event.id }) };
    }
  }

  close(): void {
    // The HTTP stack is the client's, closed with it.
  }

  /** A non-2xx answer: its google.rpc.Status, or its HTTP status alone when the body is not one (a proxy's page). */
  private async failure(response: Response, method: string): Promise<Error> {
    const body = await this.exchange.json(response, method, this.url).catch(() => undefined);
    return restProtocolError(body, response.status, this.exchange.origin(response, this.url));
  }

  private send(rest: RestCall, request: JsonObject, accept: string, call: TransportCall): Promise<Response> {
    const tenant =
      typeof request.tenant === 'string' && request.tenant !== '' ? `/${encodeURIComponent(request.tenant)}` : '';
    const url = new URL(`${this.base}${tenant}${rest.path}`);
    for (const [name, value] of Object.entries(rest.query ?? {})) {
      if (value !== undefined && value !== null && value !== '') url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {
      accept: accept === A2A_JSON_MEDIA_TYPE ? `${A2A_JSON_MEDIA_TYPE}, application/json` : accept,
    };
    // Every POST declares JSON, with a body or without: servers refuse other POSTs, which browsers send cross-site.
    if (rest.method === 'POST') headers['content-type'] = A2A_JSON_MEDIA_TYPE;
    return this.exchange.send(
      url,
      { method: rest.method, headers, body: rest.body === undefined ? undefined : JSON.stringify(rest.body) },
      call,
    );
  }
}

/** The route of `method` (rest.routes.ts, from the client's side). */
function restCallOf(method: ClientMethod, request: JsonObject): RestCall {
  const { tenant: _tenant, ...fields } = request;
  const segment = (value: JsonValue | undefined) => encodeURIComponent(String(value ?? ''));
  const task = `/tasks/${segment(fields.id)}`;
  const configs = `/tasks/${segment(fields.taskId)}/pushNotificationConfigs`;
  switch (method) {
    case 'SendMessage':
      return { method: 'POST', path: '/message:send', body: fields };
    case 'SendStreamingMessage':
      return { method: 'POST', path: '/message:stream', body: fields };
    case 'GetTask':
      return { method: 'GET', path: task, query: { historyLength: fields.historyLength } };
    case 'ListTasks':
      return {
        method: 'GET',
        path: '/tasks',
        query: Object.fromEntries(LIST_TASKS_QUERY.map((name) => [name, fields[name]])),
      };
    case 'CancelTask':
      return {
        method: 'POST',
        path: `${task}:cancel`,
        body: fields.metadata === undefined ? undefined : { metadata: fields.metadata },
      };
    case 'SubscribeToTask':
      return { method: 'POST', path: `${task}:subscribe` };
    case 'CreateTaskPushNotificationConfig':
      return { method: 'POST', path: configs, body: fields };
    case 'GetTaskPushNotificationConfig':
      return { method: 'GET', path: `${configs}/${segment(fields.id)}` };
    case 'ListTaskPushNotificationConfigs':
      return { method: 'GET', path: configs, query: { pageSize: fields.pageSize, pageToken: fields.pageToken } };
    case 'DeleteTaskPushNotificationConfig':
      return { method: 'DELETE', path: `${configs}/${segment(fields.id)}` };
    case 'GetExtendedAgentCard':
      return { method: 'GET', path: '/extendedAgentCard' };
  }
}
