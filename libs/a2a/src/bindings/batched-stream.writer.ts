import { A2aError } from '../errors/a2a.error.js';

/**
 * Events one stream may hold while its client does not read (the transport's buffer is full), on SSE and gRPC alike:
 * beyond it, that stream alone is closed with an error, and its client resubscribes (the task goes on), rather than
 * the server holding a slow reader's events without bound.
 */
export const MAX_UNSENT_EVENTS = 1000;

/** Most events gathered into one write. */
const WRITE_BATCH_EVENTS = 256;

/** The error that closes a stream whose client did not read it. */
export function slowReaderError(): A2aError {
  return new A2aError(
    'Unavailable',
    'The stream was closed because its client did not read it; subscribe again to continue',
  );
}

/** Where a stream's events go: node's `ServerResponse` (SSE) or `ServerHttp2Stream` (gRPC). */
export interface StreamSink<T> {
  write(chunk: T): boolean;
  once(event: 'drain', listener: () => void): unknown;
  readonly writableEnded: boolean;
  readonly destroyed: boolean;
}

/**
 * Writes a stream's events, each already framed for its binding: the events of one tick leave in one write (`join`
 * makes it), not one write per event. While the client does not read (`write()` returned false, and no 'drain' came
 * within a loop turn, so a burst is not held against it), at most {@link MAX_UNSENT_EVENTS} more are held, and past
 * that `write` refuses: the stream is to be closed rather than hold a slow reader's events without bound.
 */
export class BatchedStreamWriter<T> {
  private pending: T[] = [];
  private flushQueued = false;
  private draining = false;
  private congested = false;

  constructor(
    private readonly sink: StreamSink<T>,
    private readonly join: (parts: T[]) => T,
  ) {}

  /** Queues one framed event; false, queueing nothing, when the client has left too many unread. */
  write(part: T): boolean {
    if (this.congested && this.pending.length >= MAX_UNSENT_EVENTS) return false;
    this.pending.push(part);
    // A producer that emits without pausing would otherwise pile its whole output up before the tick ends.
    if (this.pending.length >= WRITE_BATCH_EVENTS && !this.draining) this.flush();
    else if (!this.flushQueued && !this.draining) {
      this.flushQueued = true;
      process.nextTick(() => this.flush());
    }
    return true;
  }

  /** Hands everything queued to the sink now, drained or not: the stream ends after it. */
  finish(): void {
    this.draining = false;
    this.flush();
  }

  /** Removes what is queued and returns it, for the stream's last write of its own. */
  take(): T[] {
    const taken = this.pending;
    this.pending = [];
    return taken;
  }

  private flush(): void {
    this.flushQueued = false;
    // A stream ended meanwhile (its deadline, its client gone) takes no more events.
    if (this.draining || this.pending.length === 0 || this.sink.writableEnded || this.sink.destroyed) return;
    const parts = this.take();
    if (this.sink.write(parts.length === 1 ? parts[0] : this.join(parts))) return;
    this.draining = true;
    this.congested = false;
    // Still waiting one loop turn later (after the poll phase, where 'drain' fires): the client is not reading.
    setImmediate(() => (this.congested = this.draining));
    this.sink.once('drain', () => {
      this.draining = false;
      this.flush();
    });
  }
}
