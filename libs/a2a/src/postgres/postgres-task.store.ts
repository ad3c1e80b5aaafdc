import type { OnApplicationShutdown } from '@nestjs/common';
import type { Pool } from 'pg';
import { DEFAULT_MAX_HISTORY } from '../a2a.constants.js';
import type { TaskScope } from '../context/call-context.js';
import { applyChange, type TaskChange } from '../engine/task-reducer.js';
import type { Task } from '../protocol/a2a.types.js';
import { decodeCursor, encodeCursor } from '../store/list-cursor.js';
import { ConcurrentModificationError, type StoredTask, type TaskListQuery, type TaskPage, type TaskStore } from '../store/task.store.js';
import { statusMs, stateNumber, textKey, timestampParam } from './postgres-task.columns.js';
import { DEFAULT_A2A_SCHEMA, schemaIdentifier } from './postgres.migrations.js';

export interface PostgresTaskStoreOptions {
  /** The schema `migrateA2aSchema` created. Default `a2a`. */
  schema?: string;
  /** Most messages kept per task history (oldest dropped). Default 1000, as the module's `limits.maxHistoryLength`. */
  maxHistoryLength?: number;
  /** Whether `close()` ends the pool: for a pool that only this store uses. Default false. */
  endPoolOnClose?: boolean;
}

interface TaskRow {
  task: Task;
  /** bigint: the driver returns it as a string. */
  version: string;
  skill_id: string;
}

/** A `status_ts` value from a ms parameter (see `timestampParam`). */
const statusTs = (param: string) => `COALESCE(to_timestamp(${param}::float8 / 1000), '-infinity')`;

/**
 * Tasks in PostgreSQL (tables from `migrateA2aSchema`), so they outlive the process. Every statement is filtered by
 * tenant and owner: a task outside the caller's scope does not exist for it. Each `update` commits the task and one
 * `a2a_task_events` row (seq = the new version, payload = the changes) in one statement.
 *
 * Behaves as `InMemoryTaskStore` does, except that nothing is evicted: deleting old tasks is the database's business.
 */
export class PostgresTaskStore implements TaskStore, OnApplicationShutdown {
  private readonly maxHistoryLength: number;
  private readonly tasks: string;
  private readonly events: string;
  private closing?: Promise<void>;

  constructor(
    private readonly pool: Pool,
    private readonly options: PostgresTaskStoreOptions = {},
  ) {
    const schema = schemaIdentifier(options.schema ?? DEFAULT_A2A_SCHEMA);
    this.tasks = `${schema}.a2a_tasks`;
    this.events = `${schema}.a2a_task_events`;
    this.maxHistoryLength = options.maxHistoryLength ?? DEFAULT_MAX_HISTORY;
    if (!(this.maxHistoryLength >= 1)) throw new RangeError(`maxHistoryLength must be at least 1, got ${options.maxHistoryLength}`);
  }

  async create(task: Task, skillId: string, scope: TaskScope): Promise<StoredTask> {
    const json = JSON.stringify(task);
    const { rowCount } = await this.pool.query(
      `INSERT INTO ${this.tasks} (id, tenant, owner, context_id, skill_id, state, version, task, status_ts)
       VALUES ($1, $2, $3, $4, $5, $6, 1, $7, ${statusTs('$8')}) ON CONFLICT (id) DO NOTHING`,
      [textKey(task.id), textKey(scope.tenant), textKey(scope.owner), textKey(task.contextId), skillId, stateNumber(task.status.state), json, timestampParam(statusMs(task))],
    );
    // Ids are unique across scopes: another owner's task with this id exists, but is not revealed.
    if (rowCount === 0) throw new ConcurrentModificationError(task.id);
    return { task: JSON.parse(json) as Task, version: 1, skillId };
  }

  async get(id: string, scope: TaskScope): Promise<StoredTask | undefined> {
    const row = await this.row(id, scope);
    return row && { task: row.task, version: Number(row.version), skillId: row.skill_id };
  }

  async list(query: TaskListQuery, scope: TaskScope): Promise<TaskPage> {
    const cursor = query.pageToken ? decodeCursor(query.pageToken, scope) : undefined;
    const params: unknown[] = [textKey(scope.tenant), textKey(scope.owner)];
    const where = ['tenant = $1', 'owner = $2'];
    const param = (value: unknown) => `$${params.push(value)}`;
    if (query.contextId !== undefined) where.push(`context_id = ${param(textKey(query.contextId))}`);
    if (query.status !== undefined) where.push(`state = ${param(stateNumber(query.status))}`);
    const after = query.statusTimestampAfter ? Date.parse(query.statusTimestampAfter) : NaN;
    // As in memory: a task without a timestamp passes the filter.
    if (!Number.isNaN(after)) where.push(`(status_ts >= ${statusTs(param(timestampParam(after)))} OR status_ts = '-infinity')`);
    const filter = where.join(' AND ');
    const countParams = [...params];
    // Keyset paging: the index (tenant, owner[, context_id], status_ts DESC, id DESC) starts at the cursor.
    const keyset = cursor ? ` AND (status_ts, id) < (${statusTs(param(timestampParam(cursor.timestamp)))}, ${param(textKey(cursor.id))})` : '';
    const [count, page] = await Promise.all([
      this.pool.query<{ total: string }>(`SELECT count(*) AS total FROM ${this.tasks} WHERE ${filter}`, countParams),
      this.pool.query<{ task: Task }>(
        `SELECT task FROM ${this.tasks} WHERE ${filter}${keyset} ORDER BY status_ts DESC, id DESC LIMIT ${param(query.pageSize + 1)}`,
        params,
      ),
    ]);
    const tasks = page.rows.slice(0, query.pageSize).map((row) => row.task);
    const last = tasks[tasks.length - 1];
    return {
      tasks,
      nextPageToken: page.rows.length > query.pageSize && last ? encodeCursor({ timestamp: statusMs(last), id: last.id }, scope) : '',
      totalSize: Number(count.rows[0].total),
    };
  }

  async update(id: string, scope: TaskScope, expectedVersion: number, changes: readonly TaskChange[]): Promise<number> {
    const row = await this.row(id, scope);
    if (!row || Number(row.version) !== expectedVersion) throw new ConcurrentModificationError(id);
    // No event to record, and its seq would be the current version's.
    if (changes.length === 0) return expectedVersion;
    const task = row.task;
    for (const change of changes) applyChange(task, change, this.maxHistoryLength);
    const version = expectedVersion + changes.length;
    // One statement, so one transaction: the version check (re-evaluated on the latest row if a concurrent writer
    // holds it), the task and its event commit together or not at all.
    const { rowCount } = await this.pool.query(
      `WITH updated AS (
         UPDATE ${this.tasks} SET task = $5, version = $6, state = $7, status_ts = ${statusTs('$8')}
         WHERE tenant = $1 AND owner = $2 AND id = $3 AND version = $4 RETURNING id)
       INSERT INTO ${this.events} (task_id, seq, payload) SELECT id, $6, $9 FROM updated`,
      [
        textKey(scope.tenant),
        textKey(scope.owner),
        textKey(id),
        expectedVersion,
        JSON.stringify(task),
        version,
        stateNumber(task.status.state),
        timestampParam(statusMs(task)),
        JSON.stringify(changes),
      ],
    );
    if (rowCount === 0) throw new ConcurrentModificationError(id);
    return version;
  }

  /** Ends the pool if `endPoolOnClose` is set (as `postgresTaskStore()` does for a pool it created); else nothing. */
  close(): Promise<void> {
    if (!this.options.endPoolOnClose) return Promise.resolve();
    return (this.closing ??= this.pool.end());
  }

  /** Nest calls this on app shutdown when the store is the module's `taskStore`, after shutdown's draining hooks. */
  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  private async row(id: string, scope: TaskScope): Promise<TaskRow | undefined> {
    const { rows } = await this.pool.query<TaskRow>(`SELECT task, version, skill_id FROM ${this.tasks} WHERE tenant = $1 AND owner = $2 AND id = $3`, [
      textKey(scope.tenant),
      textKey(scope.owner),
      textKey(id),
    ]);
    return rows[0];
  }
}
