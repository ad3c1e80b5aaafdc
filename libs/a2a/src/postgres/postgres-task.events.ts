import type { TaskScope } from '../context/call-context.js';
import type { TaskChange } from '../task/task-reducer.js';
import type { VersionedChange } from '../store/task.store.js';
import type { Queryable } from './postgres-outages.js';
import { textKey } from './postgres-task.columns.js';
import type { PostgresTaskTables } from './postgres-task.tables.js';

/**
 * The changes of a task after `afterVersion`, from its event rows: each holds the changes of one update and the
 * version after them, so a row of n changes stands for the n versions up to its seq. Nothing before the first update
 * is logged (the task's creation): a reader from there gets 'truncated', which means "start from the task".
 */
export async function readTaskChanges(
  db: Queryable,
  tables: PostgresTaskTables,
  id: string,
  scope: TaskScope,
  afterVersion: number,
): Promise<VersionedChange[] | 'truncated' | undefined> {
  const { rows } = await db.query<{ version: string; seq: string | null; payload: TaskChange[] | null }>(
    `SELECT t.version, e.seq, e.payload FROM ${tables.tasks} t
       LEFT JOIN ${tables.events} e ON e.task_id = t.id AND e.seq > $4
       WHERE t.tenant = $1 AND t.owner = $2 AND t.id = $3 ORDER BY e.seq`,
    [textKey(scope.tenant), textKey(scope.owner), textKey(id), afterVersion],
  );
  if (rows.length === 0) return undefined;
  const version = Number(rows[0].version);
  if (afterVersion >= version) return [];
  const changes: VersionedChange[] = [];
  for (const row of rows) {
    if (row.seq === null || row.payload === null) continue;
    const last = Number(row.seq);
    row.payload.forEach((change, index) => {
      const produced = last - row.payload!.length + 1 + index;
      if (produced > afterVersion) changes.push({ version: produced, change });
    });
  }
  // Contiguous from afterVersion + 1 to the task's version, or the log does not reach back that far.
  if (changes.length === 0 || changes[0].version !== afterVersion + 1 || changes.at(-1)!.version !== version)
    return 'truncated';
  return changes;
}
