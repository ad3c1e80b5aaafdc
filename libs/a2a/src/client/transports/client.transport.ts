import type { JsonObject, ProtocolBinding, StreamResponse } from '../../protocol/a2a.types.js';

/** The operations answering once (spec §5.3); the JSON-RPC method and gRPC rpc names. */
export type UnaryMethod =
  | 'SendMessage'
  | 'GetTask'
  | 'ListTasks'
  | 'CancelTask'
  | 'CreateTaskPushNotificationConfig'
  | 'GetTaskPushNotificationConfig'
  | 'ListTaskPushNotificationConfigs'
  | 'DeleteTaskPushNotificationConfig'
  | 'GetExtendedAgentCard';

/** The operations answering with a stream of StreamResponses. */
export type StreamingMethod = 'SendStreamingMessage' | 'SubscribeToTask';

/** Every operation a transport carries. */
export type ClientMethod = UnaryMethod | StreamingMethod;

/** What one attempt of a call carries besides its request message. */
export interface TransportCall {
  /** Ends the attempt (the caller's signal, the timeout, an unsubscribe). */
  readonly signal: AbortSignal;
  /** Service parameters (`A2A-Version`, `A2A-Extensions`, `Last-Event-ID`) and credentials; on gRPC, metadata (lowercased). */
  readonly headers: Readonly<Record<string, string>>;
  /** Query parameters (an API key whose scheme says `query`); HTTP bindings only. */
  readonly query: Readonly<Record<string, string>>;
}

/** One stream event and, on the HTTP bindings, its SSE `id:` (what `Last-Event-ID` resumes from). */
export interface StreamFrame {
  readonly response: StreamResponse;
  readonly id?: string;
}

/**
 * One interface of the agent (spec §5): sends request messages in ProtoJSON, with `tenant` set as the interface
 * says, and returns the response message as sent (the client checks its shape). Errors are `A2aClientError`s:
 * `A2aProtocolError` for the agent's answers, `A2aTransportError` / `A2aAddressRefusedError` otherwise.
 */
export interface ClientTransport {
  readonly binding: ProtocolBinding;
  readonly url: string;
  unary(method: UnaryMethod, request: JsonObject, call: TransportCall): Promise<unknown>;
  /** The request is sent when iteration starts; breaking out of the loop ends it. */
  stream(method: StreamingMethod, request: JsonObject, call: TransportCall): AsyncIterable<StreamFrame>;
  close(): void;
}

/** The bounds a transport applies to what it reads. */
export interface TransportLimits {
  readonly maxResponseBytes: number;
  readonly maxEventBytes: number;
}
