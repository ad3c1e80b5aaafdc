import { Observable } from 'rxjs';
import type { TaskEventRecord } from '../bus/event-bus.js';
import type { StreamResponse, Task } from '../protocol/a2a.types.js';

export interface TaskSnapshot {
  task: Task;
  version: number;
}

/** A frame of a task stream, with what the stream's owner needs to decide when to stop. */
export type TaskStreamItem = { response: StreamResponse; final: boolean } | { settled: true };

/**
 * The task first, then every committed event after it, in order and without duplicates (R47–R50). The live tail is
 * subscribed before the snapshot is read and buffered meanwhile, so no event can fall between the two.
 */
export function snapshotThenTail(tail$: Observable<TaskEventRecord>, snapshot: () => Promise<TaskSnapshot>): Observable<TaskStreamItem> {
  return new Observable<TaskStreamItem>((subscriber) => {
    let version: number | undefined;
    let pending: TaskEventRecord[] = [];
    const forward = (record: TaskEventRecord) => {
      // A settled marker older than the snapshot is the end of an earlier run (one whose follow-up this stream shows).
      if (record.settled) return record.seq >= version! ? subscriber.next({ settled: true }) : undefined;
      if (record.seq <= version! || !record.event) return;
      version = record.seq;
      subscriber.next({ response: record.event, final: record.final });
    };
    const subscription = tail$.subscribe({
      next: (record) => (version === undefined ? pending.push(record) : forward(record)),
      error: (error) => subscriber.error(error),
    });
    snapshot().then(
      (snap) => {
        if (subscriber.closed) return;
        version = snap.version;
        subscriber.next({ response: { task: snap.task }, final: false });
        const buffered = pending;
        pending = [];
        buffered.forEach(forward);
      },
      (error: unknown) => subscriber.error(error),
    );
    return () => subscription.unsubscribe();
  });
}
