import { Observable, type Subscription } from 'rxjs';
import type { TaskEventRecord } from '../bus/event-bus.js';
import type { StreamResponse, Task } from '../protocol/a2a.types.js';

export interface TaskSnapshot {
  task: Task;
  version: number;
}

/**
 * A frame of a task stream, with what the stream's owner needs to decide when to stop, and `seq`: the task version
 * the frame brings the reader to (the SSE `id:`, which a reconnecting client sends back as `Last-Event-ID`).
 */
export type TaskStreamItem = { response: StreamResponse; final: boolean; seq: number } | { settled: true };

/** Where a stream starts: the frames it opens with, and the version they bring the reader to. */
export interface StreamHead {
  items: Array<Extract<TaskStreamItem, { response: unknown }>>;
  version: number;
  /** Nothing can follow (the reader resumed after the task's last event): the stream ends with the head. */
  ended?: boolean;
}

/** How a stream keeps up with a bus that spans replicas. */
export interface TailOptions {
  /** Resolves once the tail hears other replicas: the head is read only then. */
  ready?: () => Promise<void>;
  /** Emits after the bus lost and regained its connection: what was published meanwhile is read back with `refill`. */
  resync$?: Observable<void>;
  /** The committed events after a version, from the store. */
  refill?: (afterVersion: number) => Promise<TaskEventRecord[]>;
}

/**
 * The frames of `head` (a snapshot, or the events a resuming reader missed), then every committed event after the
 * version they reach. The tail is watched (and, with `ready`, its subscription confirmed) before the head is read, so
 * nothing falls in between; after a `resync$`, what the bus may have dropped is read back with `refill`, the live
 * records held meanwhile so that the order stays the commit order.
 */
export function headThenTail(
  tail$: Observable<TaskEventRecord>,
  head: () => Promise<StreamHead>,
  options: TailOptions = {},
): Observable<TaskStreamItem> {
  return new Observable<TaskStreamItem>((subscriber) => {
    let version: number | undefined;
    /** Records that arrived while the head, or a refill, was being read. */
    let pending: TaskEventRecord[] | undefined = [];
    const forward = (record: TaskEventRecord) => {
      // A settled marker older than the head is the end of an earlier run (one whose follow-up this stream shows).
      if (record.settled) return record.seq >= version! ? subscriber.next({ settled: true }) : undefined;
      if (record.seq <= version! || !record.event) return;
      version = record.seq;
      subscriber.next({ response: record.event, final: record.final, seq: record.seq });
    };
    const release = () => {
      const held = pending ?? [];
      pending = undefined;
      held.forEach(forward);
    };
    const subscriptions: Subscription[] = [
      tail$.subscribe({
        next: (record) => (pending ? pending.push(record) : forward(record)),
        error: (error) => subscriber.error(error),
      }),
    ];
    const { ready, resync$, refill } = options;
    (ready ? ready().then(head) : head()).then(
      (start) => {
        if (subscriber.closed) return;
        version = start.version;
        for (const item of start.items) subscriber.next(item);
        if (start.ended) return subscriber.complete();
        release();
        if (resync$ && refill) {
          subscriptions.push(
            resync$.subscribe(() => {
              if (pending || subscriber.closed) return;
              pending = [];
              refill(version!).then(
                (records) => {
                  records.forEach(forward);
                  release();
                },
                (error: unknown) => subscriber.error(error),
              );
            }),
          );
        }
      },
      (error: unknown) => subscriber.error(error),
    );
    return () => subscriptions.forEach((subscription) => subscription.unsubscribe());
  });
}
