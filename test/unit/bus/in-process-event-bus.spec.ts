import type { TaskEventRecord } from '../../../libs/a2a/src/bus/event-bus.js';
import { InProcessEventBus } from '../../../libs/a2a/src/bus/in-process-event-bus.js';

const record = (taskId: string, seq: number): TaskEventRecord => ({
  taskId,
  seq,
  event: { statusUpdate: { taskId, contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
  final: false,
  settled: false,
});

describe('InProcessEventBus', () => {
  let bus: InProcessEventBus;
  beforeEach(() => {
    bus = new InProcessEventBus();
  });

  it('fans every record out to all watchers of the task, in publish order', () => {
    const seen: Record<string, number[]> = { a: [], b: [], c: [] };
    const subs = Object.keys(seen).map((name) => bus.watch('t-1').subscribe((r) => seen[name].push(r.seq)));
    for (const seq of [1, 2, 3, 4]) bus.publish(record('t-1', seq));
    expect(seen).toEqual({ a: [1, 2, 3, 4], b: [1, 2, 3, 4], c: [1, 2, 3, 4] });
    subs.forEach((s) => s.unsubscribe());
  });

  it('delivers only the watched task’s records', () => {
    const seen: string[] = [];
    const sub = bus.watch('t-1').subscribe((r) => seen.push(`${r.taskId}#${r.seq}`));
    bus.publish(record('t-2', 1));
    bus.publish(record('t-1', 1));
    expect(seen).toEqual(['t-1#1']);
    sub.unsubscribe();
  });

  it('does not replay: a late watcher sees only what comes after it', () => {
    const early: number[] = [];
    const late: number[] = [];
    const a = bus.watch('t-1').subscribe((r) => early.push(r.seq));
    bus.publish(record('t-1', 1));
    const b = bus.watch('t-1').subscribe((r) => late.push(r.seq));
    bus.publish(record('t-1', 2));
    expect(early).toEqual([1, 2]);
    expect(late).toEqual([2]);
    a.unsubscribe();
    b.unsubscribe();
  });

  it('drops publishes for tasks nobody watches, without keeping anything', () => {
    bus.publish(record('t-1', 1));
    expect(bus.watchedTaskCount).toBe(0);
  });

  it('keeps the task’s subject while someone watches and drops it with the last watcher', () => {
    const seen: number[] = [];
    const a = bus.watch('t-1').subscribe();
    const b = bus.watch('t-1').subscribe((r) => seen.push(r.seq));
    bus.watch('t-2').subscribe().unsubscribe();
    expect(bus.watchedTaskCount).toBe(1);
    a.unsubscribe();
    expect(bus.watchedTaskCount).toBe(1);
    bus.publish(record('t-1', 1));
    expect(seen).toEqual([1]);
    b.unsubscribe();
    expect(bus.watchedTaskCount).toBe(0);
  });

  it('starts afresh after the subject was dropped', () => {
    bus.watch('t-1').subscribe().unsubscribe();
    const seen: number[] = [];
    const sub = bus.watch('t-1').subscribe((r) => seen.push(r.seq));
    bus.publish(record('t-1', 7));
    expect(seen).toEqual([7]);
    sub.unsubscribe();
    expect(bus.watchedTaskCount).toBe(0);
  });

  it('is cold until subscribed: watch() alone registers nothing', () => {
    bus.watch('t-1');
    expect(bus.watchedTaskCount).toBe(0);
  });
});
