import { Subject } from 'rxjs';
import type { TaskEventRecord } from '../../../libs/a2a/src/bus/event-bus.js';
import {
  headThenTail,
  type TailOptions,
  type TaskSnapshot,
  type TaskStreamItem,
} from '../../../libs/a2a/src/engine/task-stream.js';
import type { Task } from '../../../libs/a2a/src/protocol/a2a.types.js';

const task: Task = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } };

const event = (seq: number, final = false): TaskEventRecord => ({
  taskId: 't-1',
  seq,
  event: {
    statusUpdate: {
      taskId: 't-1',
      contextId: 'c-1',
      status: { state: final ? 'TASK_STATE_COMPLETED' : 'TASK_STATE_WORKING', timestamp: `${seq}` },
    },
  },
  final,
  settled: false,
});
const settled = (seq: number): TaskEventRecord => ({ taskId: 't-1', seq, final: false, settled: true });

function describeItem(item: TaskStreamItem): string {
  if ('settled' in item) return 'settled';
  const r = item.response;
  return 'task' in r
    ? 'task'
    : 'statusUpdate' in r
      ? `event#${r.statusUpdate.status.timestamp}${item.final ? '!' : ''}`
      : '?';
}

/** A stream head that is the task's snapshot, as SubscribeToTask's is. */
function snapshotThenTail(
  tail: Subject<TaskEventRecord>,
  snapshot: () => Promise<TaskSnapshot>,
  options?: TailOptions,
) {
  return headThenTail(
    tail,
    async () => {
      const snap = await snapshot();
      return { items: [{ response: { task: snap.task }, final: false, seq: snap.version }], version: snap.version };
    },
    options,
  );
}

function harness() {
  const tail = new Subject<TaskEventRecord>();
  let resolve!: (snap: TaskSnapshot) => void;
  let reject!: (error: unknown) => void;
  const snapshot = new Promise<TaskSnapshot>((res, rej) => ((resolve = res), (reject = rej)));
  const seen: string[] = [];
  let error: unknown;
  const subscription = snapshotThenTail(tail, () => snapshot).subscribe({
    next: (item) => seen.push(describeItem(item)),
    error: (e) => (error = e),
  });
  return { tail, resolve, reject, seen, subscription, error: () => error };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('snapshotThenTail', () => {
  it('sends the snapshot first, then events buffered while it was read, without those it already contains', async () => {
    const h = harness();
    h.tail.next(event(2));
    h.tail.next(event(3));
    h.resolve({ task, version: 2 });
    await flush();
    h.tail.next(event(4, true));
    expect(h.seen).toEqual(['task', 'event#3', 'event#4!']);
  });

  it('drops duplicate and out-of-date records', async () => {
    const h = harness();
    h.resolve({ task, version: 1 });
    await flush();
    h.tail.next(event(2));
    h.tail.next(event(2));
    h.tail.next(event(1));
    h.tail.next(event(3));
    expect(h.seen).toEqual(['task', 'event#2', 'event#3']);
  });

  it('forwards the settled marker of the current run', async () => {
    const h = harness();
    h.resolve({ task, version: 4 });
    await flush();
    h.tail.next(event(5));
    h.tail.next(settled(5));
    expect(h.seen).toEqual(['task', 'event#5', 'settled']);
  });

  it('forwards a settled marker at the snapshot version (a run that wrote nothing after it)', async () => {
    const h = harness();
    h.tail.next(settled(4));
    h.resolve({ task, version: 4 });
    await flush();
    expect(h.seen).toEqual(['task', 'settled']);
  });

  it('ignores the settled marker of an earlier run that arrives before the snapshot', async () => {
    const h = harness();
    h.tail.next(settled(3));
    h.resolve({ task, version: 4 });
    await flush();
    expect(h.seen).toEqual(['task']);
  });

  it('errors before any item when the snapshot fails, and unsubscribes from the tail on teardown', async () => {
    const h = harness();
    h.reject(new Error('not found'));
    await flush();
    expect(h.seen).toEqual([]);
    expect((h.error() as Error).message).toBe('not found');
    expect(h.tail.observed).toBe(false);
  });

  it('releases the tail when the subscriber leaves', () => {
    const h = harness();
    expect(h.tail.observed).toBe(true);
    h.subscription.unsubscribe();
    expect(h.tail.observed).toBe(false);
  });
});

describe('headThenTail after the bus reconnects (resync$)', () => {
  it('reads back what the bus dropped, holds live records meanwhile, and keeps the commit order without duplicates', async () => {
    const tail = new Subject<TaskEventRecord>();
    const resync = new Subject<void>();
    let fill!: (records: TaskEventRecord[]) => void;
    const asked: number[] = [];
    const refill = (after: number) => {
      asked.push(after);
      return new Promise<TaskEventRecord[]>((resolve) => (fill = resolve));
    };
    const seen: string[] = [];
    snapshotThenTail(tail, async () => ({ task, version: 1 }), { resync$: resync, refill }).subscribe((item) =>
      seen.push(describeItem(item)),
    );
    await flush();
    tail.next(event(2));
    resync.next();
    tail.next(event(5));
    fill([event(2), event(3), event(4)]);
    await flush();
    tail.next(event(6, true));
    expect(asked).toEqual([2]);
    expect(seen).toEqual(['task', 'event#2', 'event#3', 'event#4', 'event#5', 'event#6!']);
  });
});
