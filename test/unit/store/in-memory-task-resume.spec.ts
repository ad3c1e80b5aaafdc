import { InMemoryTaskStore } from '../../../libs/a2a/src/store/in-memory-task.store.js';
import type { TaskChange } from '../../../libs/a2a/src/task/task-reducer.js';
import type { Task, TaskState } from '../../../libs/a2a/src/protocol/a2a.types.js';

/** readChanges of the in-memory store: what a resuming stream reads (Last-Event-ID). */
const alice = { tenant: '', owner: 'alice' };
const task = (): Task => ({
  id: 't-1',
  contextId: 'c-1',
  status: { state: 'TASK_STATE_WORKING', timestamp: '2026-12-01T12:00:00.000Z' },
});
const chunk = (i: number): TaskChange => ({
  artifactUpdate: {
    taskId: 't-1',
    contextId: 'c-1',
    artifact: { artifactId: 'a', parts: [{ text: `${i}` }] },
    append: i > 1,
  },
});
const status = (state: TaskState): TaskChange => ({
  statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state, timestamp: '2026-12-01T12:00:01.000Z' } },
});

async function storeWith(changes: number, options = {}) {
  const store = new InMemoryTaskStore(options);
  await store.create(task(), 'skill', alice);
  let version = 1;
  for (let i = 1; i <= changes; i++) version = await store.update('t-1', alice, version, [chunk(i)]);
  return { store, version };
}

describe('InMemoryTaskStore.readChanges', () => {
  it('gives the changes after a version, each with the version it produced', async () => {
    const { store } = await storeWith(5);
    const changes = await store.readChanges('t-1', alice, 3);
    expect(changes).toEqual([
      { version: 4, change: chunk(3) },
      { version: 5, change: chunk(4) },
      { version: 6, change: chunk(5) },
    ]);
  });

  it('gives nothing to a reader that is up to date, and nothing of a task out of scope', async () => {
    const { store, version } = await storeWith(2);
    expect(await store.readChanges('t-1', alice, version)).toEqual([]);
    expect(await store.readChanges('t-1', { tenant: '', owner: 'bob' }, 0)).toBeUndefined();
    expect(await store.readChanges('t-1', { tenant: 't-2', owner: 'alice' }, 0)).toBeUndefined();
  });

  it('says truncated when the window no longer reaches back, and once the task is terminal', async () => {
    const { store, version } = await storeWith(10, { maxResumableChanges: 4 });
    expect(await store.readChanges('t-1', alice, version - 4)).toHaveLength(4);
    expect(await store.readChanges('t-1', alice, version - 5)).toBe('truncated');
    const done = await store.update('t-1', alice, version, [status('TASK_STATE_COMPLETED')]);
    expect(await store.readChanges('t-1', alice, version)).toBe('truncated');
    expect(await store.readChanges('t-1', alice, done)).toEqual([]);
  });

  it('hands out copies', async () => {
    const { store } = await storeWith(1);
    const [first] = (await store.readChanges('t-1', alice, 1)) as Array<{
      change: { artifactUpdate: { artifact: { parts: Array<{ text: string }> } } };
    }>;
    first.change.artifactUpdate.artifact.parts[0].text = 'changed';
    expect(await store.readChanges('t-1', alice, 1)).toEqual([{ version: 2, change: chunk(1) }]);
  });
});
