import { readSse, SseEventTooLargeError, type SseEvent } from '../../../libs/a2a/src/client/sse.reader.js';

/** The client's SSE parser, fed chunk by chunk as a socket would. */
function body(...chunks: Array<string | Uint8Array>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      controller.close();
    },
  });
}

async function events(stream: ReadableStream<Uint8Array>, max = 1024): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const event of readSse(stream, max)) out.push(event);
  return out;
}

describe('readSse', () => {
  it('reads data, event and id fields; an id sticks to later events until another one', async () => {
    expect(
      await events(body('id: 1\ndata: {"a":1}\n\n', 'data: {"a":2}\n\n', 'event: error\nid: 7\ndata: x\n\n')),
    ).toEqual([
      { event: 'message', data: '{"a":1}', id: '1' },
      { event: 'message', data: '{"a":2}', id: '1' },
      { event: 'error', data: 'x', id: '7' },
    ]);
  });

  it('accepts CRLF, CR and LF line ends, split anywhere, even between CR and LF and inside a UTF-8 character', async () => {
    const euro = new TextEncoder().encode('data: €\r\n\r\n');
    expect(
      await events(body('data: a\r', '\n\r\n', 'data: b\r\rdata: c\n\n', euro.slice(0, 7), euro.slice(7))),
    ).toEqual([
      { event: 'message', data: 'a' },
      { event: 'message', data: 'b' },
      { event: 'message', data: 'c' },
      { event: 'message', data: '€' },
    ]);
  });

  it('joins data lines with \\n, skips comments (heartbeats) and retry, and dispatches nothing without data', async () => {
    expect(await events(body(': keep-alive\n\n', 'retry: 10\n\n', 'data: one\ndata:two\n\n', 'event: x\n\n'))).toEqual([
      { event: 'message', data: 'one\ntwo' },
    ]);
  });

  it('ignores an id with NUL, and an unterminated last event', async () => {
    expect(await events(body('id: a\0b\ndata: x\n\ndata: never dispatched'))).toEqual([
      { event: 'message', data: 'x' },
    ]);
  });

  it('refuses an event, or a line, larger than the limit while still reading it', async () => {
    await expect(events(body(`data: ${'x'.repeat(50)}\n`, `data: ${'x'.repeat(50)}\n\n`), 64)).rejects.toBeInstanceOf(
      SseEventTooLargeError,
    );
    await expect(events(body('data: ', 'x'.repeat(100)), 64)).rejects.toBeInstanceOf(SseEventTooLargeError);
  });
});
