import type { ServerHttp2Stream } from 'node:http2';
import { MAX_UNSENT_EVENTS, WRITE_BATCH_EVENTS } from '../slow-reader.js';

/**
 * Writes a server stream's framed messages to its HTTP/2 stream, as the SSE writer writes frames: the messages of one
 * tick leave in one write; while the client does not read (`write()` returned false, and no 'drain' came within a loop
 * turn, so a burst is not held against it), at most {@link MAX_UNSENT_EVENTS} more are held, and past that `write`
 * refuses: the stream is to be closed rather than hold a slow reader's messages without bound.
 */
export class GrpcMessageWriter {
  private pending: Buffer[] = [];
  private flushQueued = false;
  private draining = false;
  private congested = false;

  constructor(private readonly stream: ServerHttp2Stream) {}

  /** Queues one framed message; false, queueing nothing, when the client has left too many unread. */
  write(frame: Buffer): boolean {
    if (this.congested && this.pending.length >= MAX_UNSENT_EVENTS) return false;
    this.pending.push(frame);
    // A producer that emits without pausing would otherwise pile its whole output up before the tick ends.
    if (this.pending.length >= WRITE_BATCH_EVENTS && !this.draining) this.flush();
    else if (!this.flushQueued && !this.draining) {
      this.flushQueued = true;
      process.nextTick(() => this.flush());
    }
    return true;
  }

  /** Hands everything queued to the stream now, drained or not: the stream ends after it. */
  finish(): void {
    this.draining = false;
    this.flush();
  }

  /** Drops what is queued: the stream ends without it. */
  discard(): void {
    this.pending = [];
  }

  private flush(): void {
    this.flushQueued = false;
    // A stream ended meanwhile (its deadline, say) takes no more messages.
    if (this.draining || this.pending.length === 0 || this.stream.writableEnded || this.stream.destroyed) return;
    const chunk = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
    this.pending = [];
    if (this.stream.write(chunk)) return;
    this.draining = true;
    this.congested = false;
    setImmediate(() => (this.congested = this.draining));
    this.stream.once('drain', () => {
      this.draining = false;
      this.flush();
    });
  }
}
