import type { JsonObject, Message, SendMessageConfiguration } from '../protocol/a2a.types.js';

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

/** Options of `stream`: those of a send, and how it continues after a break. */
export type A2aStreamOptions = A2aSendOptions & Pick<A2aSubscribeOptions, 'resume' | 'lastEventId'>;
