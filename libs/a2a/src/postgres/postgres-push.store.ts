import type { Queryable } from './postgres-outages.js';
import type { TaskScope } from '../context/call-context.js';
import type { StreamResponse } from '../protocol/a2a.types.js';
import {
  pushEventId,
  type PushDeadLetter,
  type PushDelivery,
  type StoredPushConfig,
  type TaskPushStore,
} from '../store/task-push.store.js';
import { textKey, untextKey } from './postgres-task.columns.js';

interface ConfigRow {
  task_id: string;
  config_id: string;
  tenant: string;
  owner: string;
  url: string;
  secrets: string;
}

interface DueRow extends ConfigRow {
  seq: string;
  payload: StreamResponse;
  attempts: number;
  first_at: Date;
}

/**
 * Push configs, outbox and dead letters in PostgreSQL (migration 4). The outbox rows themselves are written by
 * `PostgresTaskStore`'s create and update statements, with the events they commit; any replica's dispatcher delivers
 * them, each row held by one (SKIP LOCKED, then `claimed_until`) and only the lowest seq of a (task, config) due.
 *
 * `PostgresTaskStore` builds it, as its `push`.
 *
 * @hideconstructor
 */
export class PostgresPushStore implements TaskPushStore {
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly db: Queryable,
    private readonly tables: { configs: string; outbox: string; deadLetters: string },
  ) {}

  async saveConfig(config: StoredPushConfig, maxPerTask: number): Promise<boolean> {
    // One statement: the count and the insert see the same snapshot of the task's configs; a concurrent create of
    // the same task may still pass the cap by one, which the cap (a bound on work, not a security boundary) tolerates.
    const { rowCount } = await this.db.query(
      `INSERT INTO ${this.tables.configs} (task_id, config_id, tenant, owner, url, secrets)
       SELECT $1, $2, $3, $4, $5, $6
       WHERE EXISTS (SELECT 1 FROM ${this.tables.configs} WHERE task_id = $1 AND config_id = $2 AND tenant = $3 AND owner = $4)
          OR (SELECT count(*) FROM ${this.tables.configs} WHERE task_id = $1) < $7
       ON CONFLICT (task_id, config_id) DO UPDATE SET url = EXCLUDED.url, secrets = EXCLUDED.secrets
       WHERE ${this.tables.configs}.tenant = EXCLUDED.tenant AND ${this.tables.configs}.owner = EXCLUDED.owner`,
      [
        textKey(config.taskId),
        textKey(config.id),
        textKey(config.scope.tenant),
        textKey(config.scope.owner),
        config.url,
        config.secrets,
        maxPerTask,
      ],
    );
    return rowCount === 1;
  }

  async getConfig(taskId: string, id: string, scope: TaskScope): Promise<StoredPushConfig | undefined> {
    const { rows } = await this.db.query<ConfigRow>(
      `SELECT * FROM ${this.tables.configs} WHERE task_id = $1 AND config_id = $2 AND tenant = $3 AND owner = $4`,
      [textKey(taskId), textKey(id), textKey(scope.tenant), textKey(scope.owner)],
    );
    return rows[0] && configOf(rows[0]);
  }

  async listConfigs(taskId: string, scope: TaskScope): Promise<StoredPushConfig[]> {
    const { rows } = await this.db.query<ConfigRow>(
      `SELECT * FROM ${this.tables.configs} WHERE task_id = $1 AND tenant = $2 AND owner = $3 ORDER BY created_at, config_id`,
      [textKey(taskId), textKey(scope.tenant), textKey(scope.owner)],
    );
    return rows.map(configOf);
  }

  async deleteConfig(taskId: string, id: string, scope: TaskScope): Promise<void> {
    await this.db.query(
      `WITH gone AS (DELETE FROM ${this.tables.configs} WHERE task_id = $1 AND config_id = $2 AND tenant = $3 AND owner = $4 RETURNING task_id, config_id)
       DELETE FROM ${this.tables.outbox} o USING gone WHERE o.task_id = gone.task_id AND o.config_id = gone.config_id`,
      [textKey(taskId), textKey(id), textKey(scope.tenant), textKey(scope.owner)],
    );
  }

  async claimDue(limit: number, holdMs: number): Promise<PushDelivery[]> {
    const { rows } = await this.db.query<DueRow>(
      `WITH due AS (
         SELECT o.task_id, o.config_id, o.seq FROM ${this.tables.outbox} o
         WHERE o.next_at <= now() AND (o.claimed_until IS NULL OR o.claimed_until < now())
           AND NOT EXISTS (SELECT 1 FROM ${this.tables.outbox} e WHERE e.task_id = o.task_id AND e.config_id = o.config_id AND e.seq < o.seq)
         ORDER BY o.next_at LIMIT $1 FOR UPDATE OF o SKIP LOCKED)
       UPDATE ${this.tables.outbox} o SET claimed_until = now() + $2 * interval '1 millisecond'
       FROM due JOIN ${this.tables.configs} c ON c.task_id = due.task_id AND c.config_id = due.config_id
       WHERE o.task_id = due.task_id AND o.config_id = due.config_id AND o.seq = due.seq
       RETURNING o.task_id, o.config_id, o.seq, o.payload, o.attempts, o.first_at, c.tenant, c.owner, c.url, c.secrets`,
      [limit, holdMs],
    );
    return rows.map((row) => ({
      config: configOf(row),
      seq: Number(row.seq),
      payload: row.payload,
      attempts: row.attempts,
      firstAt: row.first_at.getTime(),
    }));
  }

  async delivered(delivery: PushDelivery): Promise<void> {
    await this.db.query(
      `DELETE FROM ${this.tables.outbox} WHERE task_id = $1 AND config_id = $2 AND seq = $3`,
      keyOf(delivery),
    );
  }

  async retryAt(delivery: PushDelivery, atMs: number): Promise<void> {
    await this.db.query(
      `UPDATE ${this.tables.outbox} SET attempts = $4, next_at = to_timestamp($5::float8 / 1000), claimed_until = NULL
       WHERE task_id = $1 AND config_id = $2 AND seq = $3`,
      [...keyOf(delivery), delivery.attempts + 1, atMs],
    );
  }

  async release(delivery: PushDelivery, atMs: number): Promise<void> {
    await this.db.query(
      `UPDATE ${this.tables.outbox} SET next_at = GREATEST(next_at, to_timestamp($4::float8 / 1000)), claimed_until = NULL
       WHERE task_id = $1 AND config_id = $2 AND seq = $3`,
      [...keyOf(delivery), atMs],
    );
  }

  async deadLetter(delivery: PushDelivery, letter: PushDeadLetter): Promise<void> {
    await this.db.query(
      `WITH gone AS (DELETE FROM ${this.tables.outbox} WHERE task_id = $1 AND config_id = $2 AND seq = $3 RETURNING task_id)
       INSERT INTO ${this.tables.deadLetters} (tenant, task_id, config_id, seq, attempts, first_at, last_at, last_status, last_error)
       VALUES ($4, $1, $2, $3, $5, $6, $7, $8, $9)`,
      [
        ...keyOf(delivery),
        textKey(letter.tenant),
        letter.attempts,
        letter.firstAt,
        letter.lastAt,
        letter.lastStatus ?? null,
        letter.lastError,
      ],
    );
  }

  async deadLetters(query: { taskId?: string; limit: number }): Promise<PushDeadLetter[]> {
    const { rows } = await this.db.query<{
      tenant: string;
      task_id: string;
      config_id: string;
      seq: string;
      attempts: number;
      first_at: Date;
      last_at: Date;
      last_status: number | null;
      last_error: string;
    }>(`SELECT * FROM ${this.tables.deadLetters} WHERE $1::text IS NULL OR task_id = $1 ORDER BY id DESC LIMIT $2`, [
      query.taskId === undefined ? null : textKey(query.taskId),
      query.limit,
    ]);
    return rows.map((row) => ({
      tenant: untextKey(row.tenant),
      taskId: untextKey(row.task_id),
      configId: untextKey(row.config_id),
      eventId: pushEventId(untextKey(row.task_id), Number(row.seq)),
      attempts: row.attempts,
      firstAt: row.first_at.toISOString(),
      lastAt: row.last_at.toISOString(),
      ...(row.last_status === null ? {} : { lastStatus: row.last_status }),
      lastError: row.last_error,
    }));
  }

  onEnqueued(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** The task store's write enqueued deliveries. */
  enqueued(): void {
    for (const listener of this.listeners) listener();
  }
}

function configOf(row: ConfigRow): StoredPushConfig {
  return {
    taskId: untextKey(row.task_id),
    id: untextKey(row.config_id),
    scope: { tenant: untextKey(row.tenant), owner: untextKey(row.owner) },
    url: row.url,
    secrets: row.secrets,
  };
}

function keyOf(delivery: PushDelivery): [string, string, number] {
  return [textKey(delivery.config.taskId), textKey(delivery.config.id), delivery.seq];
}
