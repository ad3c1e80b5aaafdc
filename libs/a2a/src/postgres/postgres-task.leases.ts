import type { Queryable } from './postgres-outages.js';
import type { TaskScope } from '../context/call-context.js';
import type { ExpiredLease, RestartableRun, TaskLeases } from '../store/task-leases.js';
import { textKey, untextKey } from './postgres-task.columns.js';

/** What a handed-over lease's holder id ends with: a name no replica renews under. */
const HANDED_OFF = ' (handed over at shutdown)';

/**
 * `a2a_task_leases` (migration 2): expiry by the database's clock, claims with SKIP LOCKED so each goes to one reaper.
 *
 * `PostgresTaskStore` builds it, as its `leases`.
 *
 * @hideconstructor
 */
export class PostgresTaskLeases implements TaskLeases {
  constructor(
    private readonly db: Queryable,
    private readonly table: string,
  ) {}

  /** Takes (or takes over) the lease of each row `rows` gives: (task_id, tenant, owner, replica_id, expires_at, request, attempt). */
  static upsert(table: string, rows: string): string {
    return `INSERT INTO ${table} (task_id, tenant, owner, replica_id, expires_at, request, attempt) ${rows}
       ON CONFLICT (task_id) DO UPDATE
       SET replica_id = EXCLUDED.replica_id, expires_at = EXCLUDED.expires_at, request = EXCLUDED.request, attempt = EXCLUDED.attempt`;
  }

  async acquire(
    taskId: string,
    scope: TaskScope,
    replicaId: string,
    ttlMs: number,
    restart?: RestartableRun,
  ): Promise<void> {
    await this.db.query(
      PostgresTaskLeases.upsert(this.table, `VALUES ($1, $2, $3, $4, now() + $5 * interval '1 millisecond', $6, $7)`),
      [
        textKey(taskId),
        textKey(scope.tenant),
        textKey(scope.owner),
        replicaId,
        ttlMs,
        restart ? JSON.stringify(restart) : null,
        restart?.attempt ?? 1,
      ],
    );
  }

  async renew(replicaId: string, ttlMs: number, taskIds: readonly string[]): Promise<string[]> {
    const { rows } = await this.db.query<{ task_id: string }>(
      `UPDATE ${this.table} SET expires_at = now() + $2 * interval '1 millisecond' WHERE task_id = ANY($3::text[]) AND replica_id = $1 RETURNING task_id`,
      [replicaId, ttlMs, taskIds.map(textKey)],
    );
    return rows.map((row) => untextKey(row.task_id));
  }

  async release(taskId: string, replicaId: string): Promise<void> {
    await this.db.query(`DELETE FROM ${this.table} WHERE task_id = $1 AND replica_id = $2`, [
      textKey(taskId),
      replicaId,
    ]);
  }

  /** Expired at once, and held by no live replica any more (the id says whose it was and why). */
  async handOff(taskId: string, replicaId: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `UPDATE ${this.table} SET replica_id = $2 || $3, expires_at = now() - interval '1 millisecond' WHERE task_id = $1 AND replica_id = $2`,
      [textKey(taskId), replicaId, HANDED_OFF],
    );
    return (rowCount ?? 0) > 0;
  }

  async holder(taskId: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ replica_id: string }>(
      `SELECT replica_id FROM ${this.table} WHERE task_id = $1 AND expires_at >= now()`,
      [textKey(taskId)],
    );
    return rows[0]?.replica_id;
  }

  async claimExpired(limit: number, replicaId: string, running: readonly string[]): Promise<ExpiredLease[]> {
    const { rows } = await this.db.query<{
      task_id: string;
      tenant: string;
      owner: string;
      replica_id: string;
      request: RestartableRun | null;
    }>(
      `DELETE FROM ${this.table} WHERE task_id IN (
         SELECT task_id FROM ${this.table} WHERE expires_at < now() AND NOT (replica_id = $2 AND task_id = ANY($3::text[]))
         ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING task_id, tenant, owner, replica_id, request`,
      [limit, replicaId, running.map(textKey)],
    );
    return rows.map((row) => ({
      taskId: untextKey(row.task_id),
      scope: { tenant: untextKey(row.tenant), owner: untextKey(row.owner) },
      replicaId: row.replica_id,
      ...(row.request ? { restart: row.request } : {}),
    }));
  }
}
