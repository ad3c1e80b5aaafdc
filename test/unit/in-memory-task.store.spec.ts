import { jest } from '@jest/globals';
import type { TaskScope } from '../../libs/a2a/src/context/call-context.js';
import type { Task, TaskState } from '../../libs/a2a/src/protocol/a2a.types.js';
import { InMemoryTaskStore } from '../../libs/a2a/src/store/in-memory-task.store.js';
import { encodeCursor } from '../../libs/a2a/src/store/list-cursor.js';
import { ConcurrentModificationError, InvalidPageTokenError, type TaskListQuery } from '../../libs/a2a/src/store/task.store.js';

const alice: TaskScope = { tenant: '', owner: 'alice' };
const bob: TaskScope = { tenant: '', owner: 'bob' };
const aliceElsewhere: TaskScope = { tenant: 'acme', owner: 'alice' };

const task = (id: string, at: string, state: TaskState = 'TASK_STATE_WORKING', contextId = 'c-1'): Task => ({
  id,
  contextId,
  status: { state, timestamp: at },
  history: [{ messageId: `m-${id}`, role: 'ROLE_USER', parts: [{ text: id }] }],
});

const working = (at: string) => ({
  statusUpdate: { taskId: 'x', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' as const, timestamp: at } },
});

const query = (q: Partial<TaskListQuery> = {}): TaskListQuery => ({ pageSize: 50, ...q });

describe('InMemoryTaskStore', () => {
  let store: InMemoryTaskStore;
  beforeEach(() => {
    store = new InMemoryTaskStore();
  });

  describe('scoping by tenant and owner', () => {
    beforeEach(async () => {
      await store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice);
    });

    it('shows a task to its owner', async () => {
      const stored = await store.get('t-1', alice);
      expect(stored).toMatchObject({ task: { id: 't-1' }, version: 1, skillId: 'skill' });
    });

    it.each([
      ['another owner', bob],
      ['the same owner in another tenant', aliceElsewhere],
    ])('hides it from %s on get and list', async (_label, scope) => {
      expect(await store.get('t-1', scope)).toBeUndefined();
      expect(await store.list(query(), scope)).toEqual({ tasks: [], nextPageToken: '', totalSize: 0 });
    });

    it('refuses an update from another owner and leaves the task unchanged', async () => {
      await expect(store.update('t-1', bob, 1, [working('2026-01-02T00:00:00.000Z')])).rejects.toBeInstanceOf(ConcurrentModificationError);
      expect((await store.get('t-1', alice))?.task.status.state).toBe('TASK_STATE_WORKING');
      expect((await store.get('t-1', alice))?.version).toBe(1);
    });
  });

  describe('copies in and out', () => {
    it('is not changed by mutating the task given to create', async () => {
      const input = task('t-1', '2026-01-01T00:00:00.000Z');
      await store.create(input, 'skill', alice);
      input.status.state = 'TASK_STATE_FAILED';
      input.history!.push({ messageId: 'evil', role: 'ROLE_USER', parts: [{ text: 'x' }] });
      const stored = await store.get('t-1', alice);
      expect(stored?.task.status.state).toBe('TASK_STATE_WORKING');
      expect(stored?.task.history).toHaveLength(1);
    });

    it('is not changed by mutating a task it returned', async () => {
      const created = await store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice);
      created.task.status.state = 'TASK_STATE_FAILED';
      const got = await store.get('t-1', alice);
      got!.task.history!.length = 0;
      const listed = await store.list(query(), alice);
      listed.tasks[0].contextId = 'hijacked';
      const again = await store.get('t-1', alice);
      expect(again?.task).toEqual(task('t-1', '2026-01-01T00:00:00.000Z'));
    });

    it('is not changed by mutating a change after update', async () => {
      await store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice);
      const change = {
        artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: { artifactId: 'a-1', parts: [{ text: 'v1' }] } },
      };
      await store.update('t-1', alice, 1, [change]);
      change.artifactUpdate.artifact.parts[0].text = 'tampered';
      change.artifactUpdate.artifact.parts.push({ text: 'extra' });
      expect((await store.get('t-1', alice))?.task.artifacts).toEqual([{ artifactId: 'a-1', parts: [{ text: 'v1' }] }]);
    });
  });

  describe('optimistic concurrency', () => {
    beforeEach(async () => {
      await store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice);
    });

    it('bumps the version by the number of changes applied', async () => {
      expect(await store.update('t-1', alice, 1, [working('2026-01-01T00:00:01.000Z')])).toBe(2);
      expect(await store.update('t-1', alice, 2, [working('2026-01-01T00:00:02.000Z'), working('2026-01-01T00:00:03.000Z')])).toBe(4);
      const stored = await store.get('t-1', alice);
      expect(stored?.version).toBe(4);
      expect(stored?.task.status.timestamp).toBe('2026-01-01T00:00:03.000Z');
    });

    it('throws ConcurrentModificationError on a stale version and writes nothing', async () => {
      await store.update('t-1', alice, 1, [working('2026-01-01T00:00:01.000Z')]);
      await expect(store.update('t-1', alice, 1, [working('2026-01-09T00:00:00.000Z')])).rejects.toBeInstanceOf(ConcurrentModificationError);
      const stored = await store.get('t-1', alice);
      expect(stored?.version).toBe(2);
      expect(stored?.task.status.timestamp).toBe('2026-01-01T00:00:01.000Z');
    });

    it('throws ConcurrentModificationError for an unknown task', async () => {
      await expect(store.update('nope', alice, 1, [])).rejects.toBeInstanceOf(ConcurrentModificationError);
    });

    it('refuses to create a task id twice', async () => {
      await expect(store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice)).rejects.toBeInstanceOf(ConcurrentModificationError);
    });
  });

  describe('list', () => {
    beforeEach(async () => {
      await store.create(task('t-a', '2026-01-01T00:00:01.000Z', 'TASK_STATE_COMPLETED', 'c-1'), 's', alice);
      await store.create(task('t-b', '2026-01-01T00:00:03.000Z', 'TASK_STATE_WORKING', 'c-2'), 's', alice);
      await store.create(task('t-c', '2026-01-01T00:00:02.000Z', 'TASK_STATE_WORKING', 'c-1'), 's', alice);
      // Same timestamp as t-b: the id breaks the tie (descending).
      await store.create(task('t-d', '2026-01-01T00:00:03.000Z', 'TASK_STATE_INPUT_REQUIRED', 'c-2'), 's', alice);
      await store.create(task('t-e', '2026-01-01T00:00:00.000Z', 'TASK_STATE_FAILED', 'c-1'), 's', alice);
      await store.create(task('t-bob', '2026-01-01T00:00:09.000Z'), 's', bob);
    });

    const listIds = async (q: Partial<TaskListQuery> = {}) => (await store.list(query(q), alice)).tasks.map((t) => t.id);

    it('orders by status timestamp, newest first, ties broken by id', async () => {
      expect(await listIds()).toEqual(['t-d', 't-b', 't-c', 't-a', 't-e']);
    });

    it('filters by contextId', async () => {
      expect(await listIds({ contextId: 'c-2' })).toEqual(['t-d', 't-b']);
      expect(await listIds({ contextId: 'unknown' })).toEqual([]);
    });

    it('filters by current status', async () => {
      expect(await listIds({ status: 'TASK_STATE_WORKING' })).toEqual(['t-b', 't-c']);
    });

    it('keeps tasks whose status timestamp is at or after statusTimestampAfter (>=)', async () => {
      expect(await listIds({ statusTimestampAfter: '2026-01-01T00:00:02.000Z' })).toEqual(['t-d', 't-b', 't-c']);
      expect(await listIds({ statusTimestampAfter: '2026-01-01T00:00:02.001Z' })).toEqual(['t-d', 't-b']);
    });

    it('combines filters', async () => {
      expect(await listIds({ contextId: 'c-1', status: 'TASK_STATE_WORKING', statusTimestampAfter: '2026-01-01T00:00:01.500Z' })).toEqual(['t-c']);
    });

    it('follows status changes: an updated task moves to the front', async () => {
      const stored = await store.get('t-e', alice);
      await store.update('t-e', alice, stored!.version, [working('2026-01-01T00:00:05.000Z')]);
      expect(await listIds()).toEqual(['t-e', 't-d', 't-b', 't-c', 't-a']);
      expect(await listIds({ status: 'TASK_STATE_FAILED' })).toEqual([]);
    });

    it('pages through every match once, with totalSize on every page and "" on the last', async () => {
      const seen: string[] = [];
      const tokens: string[] = [];
      let pageToken: string | undefined;
      for (let i = 0; i < 10; i++) {
        const page = await store.list(query({ pageSize: 2, pageToken }), alice);
        expect(page.totalSize).toBe(5);
        seen.push(...page.tasks.map((t) => t.id));
        tokens.push(page.nextPageToken);
        if (page.nextPageToken === '') break;
        pageToken = page.nextPageToken;
      }
      expect(seen).toEqual(['t-d', 't-b', 't-c', 't-a', 't-e']);
      expect(tokens.map((t) => t !== '')).toEqual([true, true, false]);
    });

    it('ends with "" when the last page is exactly full', async () => {
      const first = await store.list(query({ pageSize: 3 }), alice);
      const second = await store.list(query({ pageSize: 3, pageToken: first.nextPageToken }), alice);
      expect(second.tasks.map((t) => t.id)).toEqual(['t-a', 't-e']);
      expect(second.nextPageToken).toBe('');
      const whole = await store.list(query({ pageSize: 5 }), alice);
      expect(whole.nextPageToken).toBe('');
    });

    it('gives an empty last page for a cursor past the end', async () => {
      const page = await store.list(query({ pageToken: encodeCursor({ timestamp: 0, id: '' }, alice) }), alice);
      expect(page).toEqual({ tasks: [], nextPageToken: '', totalSize: 5 });
    });

    it.each([
      ['garbage', 'not a token!'],
      ['base64 of something else', Buffer.from('{"timestamp":1}').toString('base64url')],
      ['a wrong tuple', Buffer.from('["soon","t-a"]').toString('base64url')],
    ])('rejects a tampered pageToken (%s) with InvalidPageTokenError', async (_label, pageToken) => {
      await expect(store.list(query({ pageToken }), alice)).rejects.toBeInstanceOf(InvalidPageTokenError);
    });
  });

  describe('terminal tasks', () => {
    const completed = (at: string) => ({
      statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' as const, timestamp: at } },
    });

    it('keeps returning independent copies once a task is terminal', async () => {
      await store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice);
      await store.update('t-1', alice, 1, [completed('2026-01-01T00:00:01.000Z')]);
      const first = await store.get('t-1', alice);
      first!.task.history!.push({ messageId: 'evil', role: 'ROLE_USER', parts: [{ text: 'x' }] });
      first!.task.status.state = 'TASK_STATE_FAILED';
      const again = await store.get('t-1', alice);
      expect(again).toEqual({
        task: { ...task('t-1', '2026-01-01T00:00:01.000Z', 'TASK_STATE_COMPLETED') },
        version: 2,
        skillId: 'skill',
      });
      expect((await store.list(query(), alice)).tasks).toEqual([again!.task]);
    });

    it('still accepts a write to a terminal task from a caller other than the engine', async () => {
      await store.create(task('t-1', '2026-01-01T00:00:00.000Z', 'TASK_STATE_COMPLETED'), 'skill', alice);
      const change = { artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: { artifactId: 'late', parts: [{ text: 'p.s.' }] } } };
      expect(await store.update('t-1', alice, 1, [change])).toBe(2);
      const stored = await store.get('t-1', alice);
      expect(stored?.task.artifacts).toEqual([{ artifactId: 'late', parts: [{ text: 'p.s.' }] }]);
      expect(stored?.task.status.state).toBe('TASK_STATE_COMPLETED');
    });
  });

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
