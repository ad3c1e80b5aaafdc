import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Subject } from 'rxjs';
import { writeSse } from '../../../libs/a2a/src/bindings/http/sse.writer.js';

/** Enough of a ServerResponse for the writer: headers, writes and the end, recorded. */
class FakeResponse extends EventEmitter {
  statusCode = 0;
  headers: Record<string, string> = {};
  written = '';
  writableEnded = false;
  destroyed = false;
  setHeader(name: string, value: string): void {
    this.headers[name] = value;
  }
  write(chunk: string): boolean {
    this.written += chunk;
    return true;
  }
  end(chunk = ''): void {
    this.written += chunk;
    this.writableEnded = true;
  }
}

function start(frame: (event: { n: number }) => string) {
  const events = new Subject<{ n: number }>();
  const res = new FakeResponse();
  const errorsBeforeStart: unknown[] = [];
  writeSse(new EventEmitter() as IncomingMessage, res as unknown as ServerResponse, events, {
    frame,
    errorFrame: (error) => `event: error\ndata: ${(error as Error).message}`,
    errorBeforeStart: (error) => errorsBeforeStart.push(error),
    heartbeatMs: 60_000,
  });
  return { events, res, errorsBeforeStart };
}

const unserializable = (event: { n: number }) => {
  if (event.n === 2) throw new RangeError('Maximum call stack size exceeded');
  return JSON.stringify(event);
};

describe('writeSse', () => {
  it('ends the stream with an error frame when an event does not serialize, and stops listening', () => {
    const { events, res } = start(unserializable);
    events.next({ n: 1 });
    events.next({ n: 2 });
    expect(res.writableEnded).toBe(true);
    expect(res.written).toBe('data: {"n":1}\n\nevent: error\ndata: Maximum call stack size exceeded\n\n');
    expect(events.observed).toBe(false);
  });

  it('answers as an ordinary error when the first event does not serialize', () => {
    const { events, res, errorsBeforeStart } = start(unserializable);
    events.next({ n: 2 });
    expect(errorsBeforeStart).toEqual([new RangeError('Maximum call stack size exceeded')]);
    expect(res.statusCode).toBe(0);
    expect(events.observed).toBe(false);
  });
});
