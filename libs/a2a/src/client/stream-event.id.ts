import type { StreamResponse } from '../protocol/a2a.types.js';

/** Kept under a symbol: the event stays the protocol's StreamResponse for `JSON.stringify`, spreading and equality. */
const EVENT_ID = Symbol('nestjs-a2a.client.eventId');

/** `response` with its SSE id attached (not enumerable), for {@link eventIdOf}. */
export function withEventId(response: StreamResponse, id: string | undefined): StreamResponse {
  if (id !== undefined) Object.defineProperty(response, EVENT_ID, { value: id, enumerable: false });
  return response;
}

/**
 * The SSE `id:` an event of `stream()` or `subscribe()` came with (HTTP bindings; gRPC frames carry none): pass it as
 * `subscribe(taskId, { lastEventId })` to get exactly the events after it (docs/decisions.md, "Resuming streams"). The client does
 * that by itself when a stream breaks.
 */
export function eventIdOf(response: StreamResponse): string | undefined {
  return (response as { [EVENT_ID]?: string })[EVENT_ID];
}
