import type { StreamResponse } from '../../protocol/a2a.types.js';

const JSON_TEXT = Symbol('a2a.json');

type WithJson = StreamResponse & { [JSON_TEXT]?: string };

/**
 * The JSON of a stream event, serialized once however many streams carry it: every stream of a task receives the same
 * committed event object from the bus. Kept on the event under a symbol, which JSON and the gRPC encoder ignore;
 * committed events are never changed afterwards.
 */
export function streamResponseJson(event: StreamResponse): string {
  const cached = (event as WithJson)[JSON_TEXT];
  if (cached !== undefined) return cached;
  const json = JSON.stringify(event);
  (event as WithJson)[JSON_TEXT] = json;
  return json;
}
