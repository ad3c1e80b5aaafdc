import type { TaskScope } from '../context/call-context.js';
import type { TaskState } from '../protocol/a2a.types.js';
import { decodeCursor, encodeCursor, isAfterCursor } from './list-cursor.js';
import type { TaskListQuery, TaskPage } from './task.store.js';
import type { TerminalTaskLog } from './terminal-task.log.js';
import { taskOf, type Slot } from './in-memory-task.slots.js';

/** What a listing sorts on, for one matching task (a list cursor's fields among them). */
interface Match {
  id: string;
  slot: Slot;
  timestamp: number;
}

/**
 * ListTasks over the tasks of an InMemoryTaskStore: the caller's tasks that pass the query's filters (terminal tasks
 * `terminalTtlMs` has expired excluded), newest status first, one page after the cursor.
 */
export function listTasks(
  tasks: ReadonlyMap<string, Slot>,
  log: TerminalTaskLog,
  terminalTtlMs: number,
  query: TaskListQuery,
  scope: TaskScope,
): TaskPage {
  const cursor = query.pageToken ? decodeCursor(query.pageToken, scope) : undefined;
  const after = query.statusTimestampAfter ? Date.parse(query.statusTimestampAfter) : undefined;
  const now = Date.now();
  const matches: Match[] = [];
  for (const [id, slot] of tasks) {
    let state: TaskState;
    let statusMs: number;
    if (typeof slot === 'number') {
      const record = log.summary(slot);
      if (record.owner !== scope.owner || record.tenant !== scope.tenant || now - record.terminalAt >= terminalTtlMs)
        continue;
      if (query.contextId !== undefined && !log.contextIdIs(slot, query.contextId)) continue;
      state = record.state;
      statusMs = record.statusMs;
    } else {
      if (slot.owner !== scope.owner || slot.tenant !== scope.tenant) continue;
      if (query.contextId !== undefined && slot.task.contextId !== query.contextId) continue;
      state = slot.task.status.state;
      statusMs = Date.parse(slot.task.status.timestamp ?? '');
    }
    if (query.status !== undefined && state !== query.status) continue;
    // A task without a timestamp is kept: NaN compares false.
    if (after !== undefined && statusMs < after) continue;
    matches.push({ id, slot, timestamp: statusMs || 0 });
  }
  matches.sort(newestFirst);
  const start = cursor ? matches.findIndex((m) => isAfterCursor(m, cursor)) : 0;
  const page = start < 0 ? [] : matches.slice(start, start + query.pageSize);
  const more = start >= 0 && start + query.pageSize < matches.length;
  const last = page[page.length - 1];
  return {
    tasks: page.map((m) => taskOf(log, m.slot)),
    nextPageToken: more ? encodeCursor({ timestamp: last.timestamp, id: last.id }, scope) : '',
    totalSize: matches.length,
  };
}

function newestFirst(a: Match, b: Match): number {
  return b.timestamp - a.timestamp || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}
