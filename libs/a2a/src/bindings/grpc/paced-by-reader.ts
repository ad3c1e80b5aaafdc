import type { Writable } from 'node:stream';
import { Observable, type MonoTypeOperatorFunction } from 'rxjs';
import { MAX_UNSENT_EVENTS, slowReaderError } from '../batched-stream.writer.js';

/**
 * A server stream's messages on the grpc-js path (`grpcBinding({ directDispatch: false })`), paced by its client.
 * There Nest's `writeObservableToGrpc` writes them, and queues without bound whatever arrives while the call waits for
 * `drain`. This operator holds them instead: it hands one on only while the call takes writes (so Nest's queue stays
 * empty). While the client does not read (no `drain` within a loop turn, so a burst is not held against it), it keeps
 * at most {@link MAX_UNSENT_EVENTS}, and past that ends the stream with the slow-reader error, as the direct path and
 * SSE do (BatchedStreamWriter). Nest sends that status once the client reads what the call has
 * buffered already; the task goes on.
 */
export function pacedByReader<T>(call: Writable): MonoTypeOperatorFunction<T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      const held: T[] = [];
      /** The source's completion or error, told once everything held is out. */
      let last: (() => void) | undefined;
      let congested = false;
      let watching = false;
      // Still waiting one loop turn later (after the poll phase, where 'drain' fires): the client is not reading.
      const watch = () => {
        if (watching) return;
        watching = true;
        setImmediate(() => {
          watching = false;
          congested = call.writableNeedDrain;
        });
      };
      // Nest writes on each value it gets, and stops once `write()` returns false, i.e. once the call needs a drain.
      const release = () => {
        congested = false;
        while (held.length > 0 && !call.writableNeedDrain && !subscriber.closed) subscriber.next(held.shift()!);
        if (call.writableNeedDrain) watch();
        if (held.length > 0 || !last) return;
        const told = last;
        last = undefined;
        told();
      };
      call.on('drain', release);
      subscriber.add(() => call.off('drain', release));
      subscriber.add(
        source.subscribe({
          next: (value) => {
            if (subscriber.closed) return;
            if (held.length === 0 && !call.writableNeedDrain) {
              subscriber.next(value);
              if (call.writableNeedDrain) watch();
              return;
            }
            if (!congested || held.length < MAX_UNSENT_EVENTS) {
              held.push(value);
              return watch();
            }
            // What the client has not read is dropped: it resubscribes and starts again from the task's snapshot.
            held.length = 0;
            subscriber.error(slowReaderError());
          },
          error: (error: unknown) => {
            last = () => subscriber.error(error);
            release();
          },
          complete: () => {
            last = () => subscriber.complete();
            release();
          },
        }),
      );
    });
}
