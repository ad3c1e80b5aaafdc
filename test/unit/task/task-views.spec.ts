import { taskView } from '../../../libs/a2a/src/task/task-views.js';
import type { Message, Task } from '../../../libs/a2a/src/protocol/a2a.types.js';

const message = (n: number): Message => ({
  messageId: `m-${n}`,
  role: n % 2 ? 'ROLE_USER' : 'ROLE_AGENT',
  parts: [{ text: `${n}` }],
});

const task = (): Task => ({
  id: 't-1',
  contextId: 'c-1',
  status: { state: 'TASK_STATE_COMPLETED' },
  history: [1, 2, 3, 4, 5].map(message),
  artifacts: [{ artifactId: 'a-1', parts: [{ text: 'result' }] }],
});

const ids = (t: Task) => t.history?.map((m) => m.messageId);

describe('taskView (spec §3.2.4, §3.1.4)', () => {
  it('keeps the whole history when historyLength is unset', () => {
    expect(ids(taskView(task()))).toEqual(['m-1', 'm-2', 'm-3', 'm-4', 'm-5']);
  });

  it('omits history entirely (not []) when historyLength is 0', () => {
    const view = taskView(task(), 0);
    expect('history' in view).toBe(false);
  });

  it('keeps the N most recent messages when historyLength is N', () => {
    expect(ids(taskView(task(), 2))).toEqual(['m-4', 'm-5']);
    expect(ids(taskView(task(), 1))).toEqual(['m-5']);
  });

  it('keeps everything when N is at least the history length', () => {
    expect(ids(taskView(task(), 5))).toEqual(['m-1', 'm-2', 'm-3', 'm-4', 'm-5']);
    expect(ids(taskView(task(), 50))).toEqual(['m-1', 'm-2', 'm-3', 'm-4', 'm-5']);
  });

  it('omits an empty history instead of sending []', () => {
    expect('history' in taskView({ ...task(), history: [] })).toBe(false);
    expect('history' in taskView({ ...task(), history: undefined }, 3)).toBe(false);
  });

  it('includes artifacts by default (GetTask, SendMessage)', () => {
    expect(taskView(task()).artifacts).toEqual([{ artifactId: 'a-1', parts: [{ text: 'result' }] }]);
  });

  it('omits artifacts entirely (not []) when includeArtifacts is false (ListTasks default, spec §3.1.4)', () => {
    const view = taskView(task(), undefined, 'omit');
    expect('artifacts' in view).toBe(false);
  });

  it('emits artifacts, [] for a task without any, when includeArtifacts is true (spec §3.1.4)', () => {
    const bare = task();
    delete bare.artifacts;
    expect(taskView(bare, undefined, 'always').artifacts).toEqual([]);
    expect(taskView(task(), undefined, 'always').artifacts).toHaveLength(1);
    expect('artifacts' in taskView(bare)).toBe(false);
  });

  it('returns a new object and leaves the task alone', () => {
    const original = task();
    const view = taskView(original, 0, 'omit');
    expect(view).not.toBe(original);
    expect(original.history).toHaveLength(5);
    expect(original.artifacts).toHaveLength(1);
    expect(view).toMatchObject({ id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } });
  });
});
