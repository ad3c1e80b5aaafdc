import { jest } from '@jest/globals';
import { InMemoryTaskStore } from '../../libs/a2a/src/store/in-memory-task.store.js';
import { ConcurrentModificationError } from '../../libs/a2a/src/store/task.store.js';
import { alice, bob, describeTaskStoreContract, query, task } from '../store/task-store.contract.js';

describeTaskStoreContract('InMemoryTaskStore', (options) => new InMemoryTaskStore(options));

/** What only the in-memory store does: bound what it keeps. */
describe('InMemoryTaskStore', () => {
  describe('retention', () => {
    const ids = async (s: InMemoryTaskStore) => (await s.list(query(), alice)).tasks.map((t) => t.id).sort();
    const finish = (s: InMemoryTaskStore, id: string) =>
      s.update(id, alice, 1, [{ statusUpdate: { taskId: id, contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' as const } } }]);

    afterEach(() => {
      jest.useRealTimers();
    });

    it('beyond maxTasks forgets terminal tasks first, the longest-terminal first', async () => {
      const bounded = new InMemoryTaskStore({ maxTasks: 3 });
      for (const id of ['t-1', 't-2', 't-3']) await bounded.create(task(id, '2026-01-01T00:00:00.000Z'), 's', alice);
      // t-3 ends before t-2, so it is the first to go, although t-2 was created earlier.
      await finish(bounded, 't-3');
      await finish(bounded, 't-2');
      await bounded.create(task('t-4', '2026-01-01T00:00:00.000Z'), 's', alice);
      expect(await ids(bounded)).toEqual(['t-1', 't-2', 't-4']);
      expect(await bounded.get('t-3', alice)).toBeUndefined();
      await bounded.create(task('t-5', '2026-01-01T00:00:00.000Z'), 's', alice);
      expect(await ids(bounded)).toEqual(['t-1', 't-4', 't-5']);
    });

    it('forgets the oldest other task only when no terminal task is left', async () => {
      const bounded = new InMemoryTaskStore({ maxTasks: 2 });
      for (const id of ['t-1', 't-2', 't-3']) await bounded.create(task(id, '2026-01-01T00:00:00.000Z'), 's', alice);
      expect(await ids(bounded)).toEqual(['t-2', 't-3']);
      // A forgotten task is gone for writers too, and its id may be used again.
      await expect(bounded.update('t-1', alice, 1, [])).rejects.toBeInstanceOf(ConcurrentModificationError);
      await bounded.create(task('t-1', '2026-01-01T00:00:00.000Z'), 's', alice);
      expect(await ids(bounded)).toEqual(['t-1', 't-3']);
    });

    it('counts tasks of every scope against maxTasks', async () => {
      const bounded = new InMemoryTaskStore({ maxTasks: 1 });
      await bounded.create(task('t-1', '2026-01-01T00:00:00.000Z', 'TASK_STATE_COMPLETED'), 's', alice);
      await bounded.create(task('t-2', '2026-01-01T00:00:00.000Z'), 's', bob);
      expect(await bounded.get('t-1', alice)).toBeUndefined();
      expect(await bounded.get('t-2', bob)).toBeDefined();
    });

    it('forgets a terminal task terminalTaskTtlMs after it became terminal, and only terminal ones', async () => {
      jest.useFakeTimers({ now: Date.parse('2026-01-01T00:00:00.000Z') });
      const expiring = new InMemoryTaskStore({ terminalTaskTtlMs: 60_000 });
      await expiring.create(task('t-done', '2026-01-01T00:00:00.000Z'), 's', alice);
      await expiring.create(task('t-open', '2026-01-01T00:00:00.000Z'), 's', alice);
      jest.advanceTimersByTime(30_000);
      await finish(expiring, 't-done');
      jest.advanceTimersByTime(59_999);
      expect(await ids(expiring)).toEqual(['t-done', 't-open']);
      jest.advanceTimersByTime(1);
      expect(await expiring.get('t-done', alice)).toBeUndefined();
      expect(await ids(expiring)).toEqual(['t-open']);
      jest.advanceTimersByTime(10 * 60_000);
      expect(await expiring.get('t-open', alice)).toBeDefined();
    });

    it('drops expired tasks as new ones arrive, without anyone asking for them', async () => {
      jest.useFakeTimers({ now: Date.parse('2026-01-01T00:00:00.000Z') });
      const expiring = new InMemoryTaskStore({ terminalTaskTtlMs: 1000 });
      await expiring.create(task('t-1', '2026-01-01T00:00:00.000Z', 'TASK_STATE_FAILED'), 's', alice);
      await expiring.create(task('t-2', '2026-01-01T00:00:00.000Z'), 's', alice);
      jest.advanceTimersByTime(1000);
      expect(expiring.taskCount).toBe(2);
      await expiring.create(task('t-3', '2026-01-01T00:00:00.000Z'), 's', alice);
      expect(expiring.taskCount).toBe(2);
      expect(await ids(expiring)).toEqual(['t-2', 't-3']);
    });

    it('keeps 100,000 tasks by default', async () => {
      const unbounded = new InMemoryTaskStore();
      for (let i = 0; i < 100_001; i++) await unbounded.create(task(`t-${i}`, '2026-01-01T00:00:00.000Z', 'TASK_STATE_COMPLETED'), 's', alice);
      expect(await unbounded.get('t-0', alice)).toBeUndefined();
      expect(await unbounded.get('t-1', alice)).toBeDefined();
      expect((await unbounded.list(query({ pageSize: 1 }), alice)).totalSize).toBe(100_000);
    });

    it.each([[{ maxTasks: 0 }], [{ maxTasks: Number.NaN }], [{ terminalTaskTtlMs: -1 }]])('refuses the options %j', (options) => {
      expect(() => new InMemoryTaskStore(options)).toThrow(RangeError);
    });
  });
});
