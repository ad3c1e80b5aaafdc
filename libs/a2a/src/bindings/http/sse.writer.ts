import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Observable, Subscription } from 'rxjs';
import { BatchedStreamWriter, slowReaderError } from '../batched-stream.writer.js';
import { flushPendingHeaders } from './pending-headers.js';

/** `sseHeartbeatMs` when unset. */
export const DEFAULT_SSE_HEARTBEAT_MS = 15_000;

export interface SseOptions<T> {
  /** Serializes one event into its `data:` payload. */
  frame(event: T): string;
  /** The event's `id:`, which a reconnecting client sends back as `Last-Event-ID`; none when undefined. */
  id?(event: T): number | undefined;
  /** The whole last frame (e.g. `data: …` or `event: error\ndata: …`, no trailing blank line) for an error after the stream started. */
  errorFrame(error: unknown): string;
  /** Answers an error that happens before the first event, as an ordinary (non-SSE) response. */
  errorBeforeStart(error: unknown): void;
  /** Called once the response has started (first event, or the end of an empty stream). */
  started?(): void;
  /** Headers of the stream's response (the activated extensions); an error answered before the stream starts has none. */
  headers?: Readonly<Record<string, string>>;
  heartbeatMs: number;
}

/**
 * Sends `events$` as Server-Sent Events. Headers go out only with the first event, so an error known up front (task not
 * found, terminal task) is an ordinary error response. A client that disconnects unsubscribes, which releases the
 * stream's watchers but leaves the task running (spec §3.5.2). Comment heartbeats keep proxies from timing out.
 *
 * The frames produced in one tick (a skill emitting a burst of chunks commits them back to back) leave as one write:
 * one string to encode and one HTTP chunk, instead of a chunk with its framing per event. While the socket's buffer is
 * full (`write()` returned false), frames wait for `drain`, up to `MAX_UNSENT_EVENTS` (see BatchedStreamWriter).
 */
export function writeSse<T>(
  req: IncomingMessage,
  res: ServerResponse,
  events$: Observable<T>,
  options: SseOptions<T>,
): void {
  let started = false;
  let heartbeat: NodeJS.Timeout | undefined;
  const writer = new BatchedStreamWriter<string>(res, (parts) => parts.join(''));
  const start = () => {
    started = true;
    flushPendingHeaders(res);
    res.statusCode = 200;
    res.setHeader('Content-Type', 'text/event-stream');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('X-Accel-Buffering', 'no');
    for (const name in options.headers) res.setHeader(name, options.headers[name]);
    // No flushHeaders(): the headers leave with the first frame, in the same write.
    // A client too far behind to take one more gets none: its next event ends the stream.
    heartbeat = setInterval(() => writer.write(': keep-alive\n\n'), options.heartbeatMs);
    heartbeat.unref();
    options.started?.();
  };
  const stop = () => {
    if (heartbeat) clearInterval(heartbeat);
    heartbeat = undefined;
  };
  /** Ends the response with whatever is still waiting for its flush, plus `last`. */
  const end = (last = '') => res.end(writer.take().join('') + last);
  const fail = (error: unknown) => {
    stop();
    if (!started) return options.errorBeforeStart(error);
    end(`${options.errorFrame(error)}\n\n`);
  };
  let failed = false;
  // Declared apart: the callbacks may run, and read it, before subscribe() returns (a const would throw there).
  let subscription: Subscription | undefined;
  // eslint-disable-next-line prefer-const
  subscription = events$.subscribe({
    next: (event) => {
      if (failed) return;
      let frame: string;
      try {
        frame = options.frame(event);
      } catch (error) {
        // An event that does not serialize ends the stream with an error frame; thrown from here it would be rethrown
        // by RxJS outside any handler and end the process.
        failed = true;
        fail(error);
        subscription?.unsubscribe();
        return;
      }
      if (!started) start();
      const id = options.id?.(event);
      if (writer.write(id === undefined ? `data: ${frame}\n\n` : `id: ${id}\ndata: ${frame}\n\n`)) return;
      failed = true;
      subscription?.unsubscribe();
      stop();
      // What the client has not read is dropped: it resubscribes and starts again from the task's snapshot.
      writer.take();
      res.end(`${options.errorFrame(slowReaderError())}\n\n`);
    },
    error: fail,
    complete: () => {
      stop();
      if (!started) start();
      end();
    },
  });
  if (failed) subscription.unsubscribe();
  const onClose = () => {
    stop();
    writer.take();
    subscription?.unsubscribe();
  };
  // 'close' fires on the response when the connection ends, whether the client left or we finished.
  res.once('close', onClose);
  req.once('aborted', onClose);
}
