import type { TaskScope } from '../context/call-context.js';
import type { Task } from '../protocol/a2a.types.js';
import { decodeCursor, encodeCursor } from '../store/list-cursor.js';
import type { TaskListQuery, TaskPage } from '../store/task.store.js';
import type { Queryable } from './postgres-outages.js';
import { stateNumber, statusMs, statusTs, textKey, timestampParam } from './postgres-task.columns.js';

/** ListTasks on `a2a_tasks`: the caller's tasks, newest status first, one keyset page and the filter's total. */
export async function listTasks(
  db: Queryable,
  tasksTable: string,
  query: TaskListQuery,
  scope: TaskScope,
): Promise<TaskPage> {
  const cursor = query.pageToken ? decodeCursor(query.pageToken, scope) : undefined;
  const params: unknown[] = [textKey(scope.tenant), textKey(scope.owner)];
  const where = ['tenant = $1', 'owner = $2'];
  const param = (value: unknown) => `$${params.push(value)}`;
  if (query.contextId !== undefined) where.push(`context_id = ${param(textKey(query.contextId))}`);
  if (query.status !== undefined) where.push(`state = ${param(stateNumber(query.status))}`);
  const after = query.statusTimestampAfter ? Date.parse(query.statusTimestampAfter) : NaN;
  // As in memory: a task without a timestamp passes the filter.
  if (!Number.isNaN(after))
    where.push(`(status_ts >= ${statusTs(param(timestampParam(after)))} OR status_ts = '-infinity')`);
  const filter = where.join(' AND ');
  const countParams = [...params];
  // Keyset paging: the index (tenant, owner[, context_id], status_ts DESC, id DESC) starts at the cursor.
  const keyset = cursor
    ? ` AND (status_ts, id) < (${statusTs(param(timestampParam(cursor.timestamp)))}, ${param(textKey(cursor.id))})`
    : '';
  const [count, page] = await Promise.all([
    db.query<{ total: string }>(`SELECT count(*) AS total FROM ${tasksTable} WHERE ${filter}`, countParams),
    db.query<{ task: Task }>(
      `SELECT task FROM ${tasksTable} WHERE ${filter}${keyset} ORDER BY status_ts DESC, id DESC LIMIT ${param(query.pageSize + 1)}`,
      params,
    ),
  ]);
  const tasks = page.rows.slice(0, query.pageSize).map((row) => row.task);
  const last = tasks[tasks.length - 1];
  return {
    tasks,
    nextPageToken:
      page.rows.length > query.pageSize && last ? encodeCursor({ timestamp: statusMs(last), id: last.id }, scope) : '',
    totalSize: Number(count.rows[0].total),
  };
}
