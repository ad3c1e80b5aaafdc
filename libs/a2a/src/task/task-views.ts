import type { Task } from '../protocol/a2a.types.js';

/**
 * A task as a response shows it (spec §3.2.4, §3.1.4): `historyLength` unset keeps the whole history, 0 omits it, N
 * keeps the N most recent messages. `artifacts` as stored by default; `'omit'` drops them and `'always'` emits them
 * even when empty (ListTasks without / with `includeArtifacts`, spec §3.1.4). Returns a new object, sharing the rest.
 */
export function taskView(task: Task, historyLength?: number, artifacts: 'stored' | 'omit' | 'always' = 'stored'): Task {
  const view: Task = { ...task };
  if (historyLength === 0 || !task.history?.length) delete view.history;
  else if (historyLength !== undefined && task.history.length > historyLength)
    view.history = task.history.slice(-historyLength);
  if (artifacts === 'omit') delete view.artifacts;
  else if (artifacts === 'always') view.artifacts ??= [];
  return view;
}
