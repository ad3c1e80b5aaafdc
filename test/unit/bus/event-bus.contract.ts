import type { EventBus, TaskEventRecord } from '../../../libs/a2a/src/bus/event-bus.js';

export function taskEventRecord(
  taskId: string,
  seq: number,
  overrides: Partial<TaskEventRecord> = {},
): TaskEventRecord {
  return {
    taskId,
    seq,
    event: { statusUpdate: { taskId, contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } } },
    final: false,
    settled: false,
    ...overrides,
  };
}

/**
 * What the engine relies on from any {@link EventBus}, as seen from one replica: `headThenTail` and the senders'
 * streams assume records of the replica's own publishes arrive synchronously, once each, in publish order.
 */
export function describeEventBusContract(
  name: string,
  create: () => EventBus,
  destroy: (bus: EventBus) => Promise<void> = async () => undefined,
): void {
  describe(`${name}: the EventBus contract`, () => {
    let bus: EventBus;
    beforeEach(() => {
      bus = create();
    });
    afterEach(() => destroy(bus));

    it('delivers each record to every watcher of its task synchronously, in publish order', () => {
      const seen: number[][] = [[], []];
      const subscriptions = seen.map((list) => bus.watch('t-1').subscribe((record) => list.push(record.seq)));
      for (const seq of [1, 2, 3]) bus.publish(taskEventRecord('t-1', seq));
      expect(seen).toEqual([
        [1, 2, 3],
        [1, 2, 3],
      ]);
      subscriptions.forEach((subscription) => subscription.unsubscribe());
    });

    it('passes the record on whole: event, final and settled', () => {
      const seen: TaskEventRecord[] = [];
      const subscription = bus.watch('t-1').subscribe((record) => seen.push(record));
      const final = taskEventRecord('t-1', 2, {
        event: { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } } },
        final: true,
      });
      const settled = taskEventRecord('t-1', 1, { event: undefined, settled: true });
      bus.publish(settled);
      bus.publish(final);
      expect(seen).toEqual([settled, final]);
      subscription.unsubscribe();
    });

    it("gives a watch of this replica alone (replicaOnly) this replica's records, as any watch", () => {
      const seen: number[] = [];
      const subscription = bus.watch('t-1', { replicaOnly: true }).subscribe((record) => seen.push(record.seq));
      bus.publish(taskEventRecord('t-1', 1));
      bus.publish(taskEventRecord('t-1', 2), 'some-other-replica');
      expect(seen).toEqual([1, 2]);
      subscription.unsubscribe();
    });

    it('keeps tasks apart', () => {
      const seen: string[] = [];
      const subscription = bus.watch('t-1').subscribe((record) => seen.push(`${record.taskId}#${record.seq}`));
      bus.publish(taskEventRecord('t-2', 1));
      bus.publish(taskEventRecord('t-1', 1));
      expect(seen).toEqual(['t-1#1']);
      subscription.unsubscribe();
    });

    it('is hot: a watcher sees nothing published before it subscribed, nor after it left', () => {
      bus.publish(taskEventRecord('t-1', 1));
      const seen: number[] = [];
      const subscription = bus.watch('t-1').subscribe((record) => seen.push(record.seq));
      bus.publish(taskEventRecord('t-1', 2));
      subscription.unsubscribe();
      bus.publish(taskEventRecord('t-1', 3));
      expect(seen).toEqual([2]);
    });

    it('neither completes nor errors a watch by itself, and takes a watcher back after the last one left', () => {
      const first = bus.watch('t-1').subscribe();
      first.unsubscribe();
      const seen: number[] = [];
      let ended = false;
      const again = bus.watch('t-1').subscribe({
        next: (record) => seen.push(record.seq),
        complete: () => (ended = true),
        error: () => (ended = true),
      });
      bus.publish(taskEventRecord('t-1', 1, { final: true }));
      expect({ seen, ended }).toEqual({ seen: [1], ended: false });
      again.unsubscribe();
    });
  });
}
