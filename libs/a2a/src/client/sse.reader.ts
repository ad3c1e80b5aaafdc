/** One Server-Sent Event as dispatched (WHATWG HTML §9.2.6). */
export interface SseEvent {
  /** The `event:` field; `message` when absent. */
  readonly event: string;
  /** The `data:` lines joined with `\n`. */
  readonly data: string;
  /** The stream's last event id when this event was dispatched (an `id:` of this event or an earlier one). */
  readonly id?: string;
}

/** An event (or a line) longer than the limit: the stream is not read further. */
export class SseEventTooLargeError extends Error {
  override readonly name = 'SseEventTooLargeError';
}

/**
 * Reads a `text/event-stream` body into events, as EventSource would: lines end in CRLF, LF or CR; `data:` lines join
 * with `\n`; comments (`:` heartbeats) and `retry:` are skipped; an `id:` containing NUL is ignored; a block without
 * data dispatches nothing. `maxEventBytes` bounds each event's text (UTF-16 length) while it is still being read, so a
 * stream that never ends a line cannot grow memory without bound.
 */
export async function* readSse(body: ReadableStream<Uint8Array>, maxEventBytes: number): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder('utf-8');
  const reader = body.getReader();
  let buffer = '';
  let data: string[] = [];
  let dataLength = 0;
  let event = '';
  let lastEventId: string | undefined;
  let sawData = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let start = 0;
      for (;;) {
        const cr = buffer.indexOf('\r', start);
        const lf = buffer.indexOf('\n', start);
        const end = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
        if (end < 0) break;
        // A CR at the very end may be the first half of a CRLF split across chunks.
        if (end === cr && end === buffer.length - 1 && !done) break;
        const line = buffer.slice(start, end);
        start = end + (end === cr && buffer[end + 1] === '\n' ? 2 : 1);
        if (line === '') {
          if (sawData)
            yield {
              event: event || 'message',
              data: data.join('\n'),
              ...(lastEventId === undefined ? {} : { id: lastEventId }),
            };
          data = [];
          dataLength = 0;
          event = '';
          sawData = false;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let text = colon < 0 ? '' : line.slice(colon + 1);
        if (text.startsWith(' ')) text = text.slice(1);
        if (field === 'data') {
          dataLength += text.length + 1;
          if (dataLength > maxEventBytes)
            throw new SseEventTooLargeError(`An event of the stream is larger than ${maxEventBytes} bytes`);
          data.push(text);
          sawData = true;
        } else if (field === 'event') {
          event = text;
        } else if (field === 'id') {
          if (!text.includes('\0')) lastEventId = text;
        }
      }
      buffer = buffer.slice(start);
      if (buffer.length > maxEventBytes)
        throw new SseEventTooLargeError(`A line of the stream is longer than ${maxEventBytes} bytes`);
      if (done) return;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
