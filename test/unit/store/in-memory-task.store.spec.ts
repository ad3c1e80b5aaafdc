import { jest } from '@jest/globals';
import { InMemoryTaskStore } from '../../../libs/a2a/src/store/in-memory-task.store.js';
import { ConcurrentModificationError } from '../../../libs/a2a/src/store/task.store.js';
import { A2aMessages } from '../../../libs/a2a/src/a2a.messages.js';
import type { TaskScope } from '../../../libs/a2a/src/context/call-context.js';
import type { TaskState } from '../../../libs/a2a/src/protocol/a2a.types.js';
import type { StoredPushConfig } from '../../../libs/a2a/src/store/task-push.store.js';
import { alice, aliceElsewhere, bob, describeTaskStoreContract, query, task } from './task-store.contract.js';

describeTaskStoreContract('InMemoryTaskStore', (options) => new InMemoryTaskStore(options));

/** What only the in-memory store does: bound what it keeps. */
describe('InMemoryTaskStore', () => {
  describe('retention', () => {
    const ids = async (s: InMemoryTaskStore) => (await s.list(query(), alice)).tasks.map((t) => t.id).sort();
    const finish = (s: InMemoryTaskStore, id: string) =>
      s.update(id, alice, 1, [
        { statusUpdate: { taskId: id, contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' as const } } },
      ]);

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
      const unbounded = new InMemoryTaskStore({ maxTasksPerPrincipal: Infinity });
      for (let i = 0; i < 100_001; i++)
        await unbounded.create(task(`t-${i}`, '2026-01-01T00:00:00.000Z', 'TASK_STATE_COMPLETED'), 's', alice);
      expect(await unbounded.get('t-0', alice)).toBeUndefined();
      expect(await unbounded.get('t-1', alice)).toBeDefined();
      expect((await unbounded.list(query({ pageSize: 1 }), alice)).totalSize).toBe(100_000);
    });

    it.each([
      [{ maxTasks: 0 }],
      [{ maxTasks: Number.NaN }],
      [{ terminalTaskTtlMs: -1 }],
      [{ maxTasksPerPrincipal: 0 }],
    ])('refuses the options %j', (options) => {
      expect(() => new InMemoryTaskStore(options)).toThrow(RangeError);
    });
  });

  describe('per owner', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const carol: TaskScope = { tenant: '', owner: 'carol' };
    const flood = async (s: InMemoryTaskStore, scope: TaskScope, count: number, state: TaskState) => {
      for (let i = 0; i < count; i++) await s.create(task(`${scope.owner}-${i}`, at, state), 's', scope);
    };
    const idsOf = async (s: InMemoryTaskStore, scope: TaskScope) =>
      (await s.list(query({ pageSize: 100 }), scope)).tasks.map((t) => t.id).sort();

    afterEach(() => {
      jest.useRealTimers();
    });

    it("a full store evicts from the owner holding the most: a flood of ended tasks never takes another's", async () => {
      const bounded = new InMemoryTaskStore({ maxTasks: 4 });
      await bounded.create(task('bob-open', at, 'TASK_STATE_INPUT_REQUIRED'), 's', bob);
      await bounded.create(task('bob-done', at, 'TASK_STATE_COMPLETED'), 's', bob);
      await flood(bounded, alice, 100, 'TASK_STATE_COMPLETED');
      expect(await idsOf(bounded, bob)).toEqual(['bob-done', 'bob-open']);
      expect(await idsOf(bounded, alice)).toEqual(['alice-98', 'alice-99']);
    });

    it("a flood of open tasks evicts the flooder's oldest, never another owner's open task", async () => {
      const bounded = new InMemoryTaskStore({ maxTasks: 3 });
      await bounded.create(task('bob-open', at, 'TASK_STATE_INPUT_REQUIRED'), 's', bob);
      await flood(bounded, alice, 50, 'TASK_STATE_WORKING');
      expect(await idsOf(bounded, bob)).toEqual(['bob-open']);
      expect(await idsOf(bounded, alice)).toEqual(['alice-48', 'alice-49']);
    });

    it('among owners holding as many, one with an ended task gives it up before anyone loses an open task', async () => {
      const bounded = new InMemoryTaskStore({ maxTasks: 2 });
      await bounded.create(task('alice-open', at), 's', alice);
      await bounded.create(task('bob-done', at, 'TASK_STATE_COMPLETED'), 's', bob);
      await bounded.create(task('carol-open', at), 's', carol);
      expect(await bounded.get('bob-done', bob)).toBeUndefined();
      expect(await bounded.get('alice-open', alice)).toBeDefined();
      expect(await bounded.get('carol-open', carol)).toBeDefined();
    });

    it("beyond maxTasksPerPrincipal forgets the owner's own longest-ended task, then refuses when none has ended", async () => {
      const capped = new InMemoryTaskStore({ maxTasksPerPrincipal: 2 });
      await capped.create(task('a-done', at, 'TASK_STATE_COMPLETED'), 's', alice);
      await capped.create(task('a-open', at), 's', alice);
      await capped.create(task('b-1', at), 's', bob);
      await capped.create(task('a-next', at), 's', alice);
      expect(await idsOf(capped, alice)).toEqual(['a-next', 'a-open']);
      await expect(capped.create(task('a-more', at), 's', alice)).rejects.toMatchObject({
        kind: 'TooManyRequests',
        message: A2aMessages.tooManyTasks(2),
      });
      expect(await capped.get('a-more', alice)).toBeUndefined();
      // Other owners and the same owner in another tenant have their own count.
      await capped.create(task('b-2', at), 's', bob);
      await capped.create(task('a-acme', at), 's', aliceElsewhere);
      expect(await idsOf(capped, bob)).toEqual(['b-1', 'b-2']);
    });

    it('keeps 10,000 tasks of one owner by default', async () => {
      const store = new InMemoryTaskStore();
      await flood(store, alice, 10_001, 'TASK_STATE_COMPLETED');
      expect(await store.get('alice-0', alice)).toBeUndefined();
      expect(await store.get('alice-1', alice)).toBeDefined();
    });

    it('gives back the log space of tasks evicted out of their order', async () => {
      const bounded = new InMemoryTaskStore({ maxTasks: 100 });
      // Bob's ended task is the log's oldest record, which the flood never evicts: the log's walk would stop there.
      await bounded.create(task('bob-done', at, 'TASK_STATE_COMPLETED'), 's', bob);
      const big = 'x'.repeat(4096);
      for (let i = 0; i < 2000; i++)
        await bounded.create({ ...task(`alice-${i}`, at, 'TASK_STATE_COMPLETED'), metadata: { big } }, 's', alice);
      // Inside look, on purpose: 2000 records of 4 KiB are 8 slabs, of which about 100 records' worth are still used.
      const log = (bounded as unknown as { log: { slabs: unknown[] } }).log;
      expect(log.slabs.filter(Boolean).length).toBeLessThanOrEqual(3);
      expect(await bounded.get('bob-done', bob)).toBeDefined();
      expect((await idsOf(bounded, alice)).length).toBe(99);
    });

    describe("a task's push configs and outbox go with it", () => {
      const config = (taskId: string, scope: TaskScope): StoredPushConfig => ({
        taskId,
        id: 'hook',
        scope,
        url: 'https://hooks.example.com/a2a',
        secrets: '',
      });
      const ended = (id: string) => ({
        statusUpdate: { taskId: id, contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' as const } },
      });

      it('when a full store evicts the task', async () => {
        const bounded = new InMemoryTaskStore({ maxTasks: 1 });
        await bounded.push.saveConfig(config('t-1', alice), 10);
        await bounded.create(task('t-1', at), 's', alice);
        await bounded.create(task('t-2', at), 's', alice);
        expect(await bounded.push.listConfigs('t-1', alice)).toEqual([]);
        expect(await bounded.push.claimDue(10, 1000)).toEqual([]);
      });

      it('when the owner cap evicts it, and when it refuses the task its message registered a webhook for', async () => {
        const capped = new InMemoryTaskStore({ maxTasksPerPrincipal: 1 });
        await capped.push.saveConfig(config('t-1', alice), 10);
        await capped.create(task('t-1', at, 'TASK_STATE_COMPLETED'), 's', alice);
        await capped.push.saveConfig(config('t-2', alice), 10);
        await capped.create(task('t-2', at), 's', alice);
        expect(await capped.push.listConfigs('t-1', alice)).toEqual([]);
        await capped.push.saveConfig(config('t-3', alice), 10);
        await expect(capped.create(task('t-3', at), 's', alice)).rejects.toMatchObject({ kind: 'TooManyRequests' });
        expect(await capped.push.listConfigs('t-3', alice)).toEqual([]);
        expect((await capped.push.claimDue(10, 1000)).map((d) => d.config.taskId)).toEqual(['t-2']);
      });

      it('when terminalTaskTtlMs expires it', async () => {
        jest.useFakeTimers({ now: Date.parse(at) });
        const expiring = new InMemoryTaskStore({ terminalTaskTtlMs: 1000 });
        await expiring.push.saveConfig(config('t-1', alice), 10);
        await expiring.create(task('t-1', at), 's', alice);
        await expiring.update('t-1', alice, 1, [ended('t-1')]);
        jest.advanceTimersByTime(1000);
        await expiring.create(task('t-2', at), 's', alice);
        expect(await expiring.push.listConfigs('t-1', alice)).toEqual([]);
        expect(await expiring.push.claimDue(10, 1000)).toEqual([]);
      });
    });
  });
});
