import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Pool, QueryConfig } from 'pg';
import { DEFAULT_MAX_HISTORY } from '../a2a.constants.js';
import type { TaskScope } from '../context/call-context.js';
import { applyChange, type TaskChange } from '../task/task-reducer.js';
import type { Message, Task, TaskState } from '../protocol/a2a.types.js';
import { isTerminal, settlesSend } from '../task/task-states.js';
import type { LeaseRequest } from '../store/task-leases.js';
import { decodeCursor, encodeCursor } from '../store/list-cursor.js';
import {
  ConcurrentModificationError,
  type StoredTask,
  type TaskListQuery,
  type TaskPage,
  type TaskStore,
  type VersionedChange,
} from '../store/task.store.js';
import { statusMs, stateNumber, textKey, timestampParam, untextKey } from './postgres-task.columns.js';
import { DEFAULT_A2A_SCHEMA, schemaIdentifier } from './postgres.migrations.js';
import { PostgresTaskLeases } from './postgres-task.leases.js';
import { logIdleConnectionErrors, unreachableAsUnavailable, type Queryable } from './postgres-outages.js';
import { PostgresPushStore } from './postgres-push.store.js';
import { WrittenTasks } from './written-tasks.js';
import { TerminalTasks } from './terminal-tasks.js';
import { pushEventsOf } from '../store/task-push.store.js';
import { withinDeadline } from '../health/within-deadline.js';
import { StatementBatcher } from './statement-batcher.js';

export interface PostgresTaskStoreOptions {
  /** The schema `migrateA2aSchema` created. Default `a2a`. */
  schema?: string;
  /** Most messages kept per task history (oldest dropped). Default 1000, as the module's `limits.maxHistoryLength`. */
  maxHistoryLength?: number;
  /** Whether `close()` ends the pool: for a pool that only this store uses. Default false. */
  endPoolOnClose?: boolean;
  /**
   * The janitor: what only resuming readers and retried sends need is deleted once it is `afterMs` old (the event
   * rows of tasks terminal for that long, and message ids), every `everyMs`. Default 24 h, every 10 min; `false` keeps
   * everything (call `prune()` yourself).
   */
  retention?: { afterMs?: number; everyMs?: number } | false;
  /**
   * Terminal tasks kept in memory (most recently used), which GetTask then reads without a round trip: a terminal task
   * is never written again. Default 1000; 0 turns the cache off (e.g. if something outside this library edits rows).
   */
  terminalTaskCache?: number;
}

const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;
const DEFAULT_TERMINAL_TASK_CACHE = 1000;
const DEFAULT_PRUNE_EVERY_MS = 10 * 60 * 1000;
/** Rows deleted per statement, so that a janitor catching up never holds long locks. */
const PRUNE_BATCH = 5_000;
/** How long `healthCheck()` waits for a connection and `SELECT 1`. */
const HEALTH_CHECK_TIMEOUT_MS = 2_000;

interface TaskRow {
  task: Task;
  /** bigint: the driver returns it as a string. */
  version: string;
  skill_id: string;
}

/** A message id's claim: its key columns (tenant, owner, message id), the task it names, and the run's lease. */
interface Claim {
  key: string[];
  taskId: string;
  lease?: LeaseRequest;
}

/** A new task's row, as its columns hold it, and the deliveries its creation enqueues. */
interface Creation {
  id: string;
  tenant: string;
  owner: string;
  contextId: string;
  skillId: string;
  state: number;
  version: number;
  task: string;
  statusMs: number | null;
  /** The changes already applied to `task` (its event row), or null. */
  changes: string | null;
  /** Terminal or interrupted: its lease goes. */
  settles: boolean;
  pushed: Array<{ seq: number; payload: string }>;
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
  private readonly messageIds: string;
  private readonly outbox: string;
  private readonly pushConfigs: string;
  private readonly leaseTable: string;
  /** Push configs, their outbox (filled by create and update, in their own statement) and dead letters. */
  readonly push: PostgresPushStore;
  /** Leases of running skills, so that replicas sharing this store fail the tasks of one that dies. */
  readonly leases: PostgresTaskLeases;
  private closing?: Promise<void>;
  /** What this store last wrote of each open task: the next update of it starts from there, without a read. */
  private readonly written = new WrittenTasks();
  private readonly terminal: TerminalTasks;
  private readonly janitor?: NodeJS.Timeout;
  /** The pool's statements, with a database that cannot be reached answered as Unavailable. */
  private readonly db: Queryable;
  /** Concurrent sends' claims and creations, each kind in one statement per turn of the event loop. */
  private readonly claims = new StatementBatcher<Claim, boolean>((claims) => this.insertClaims(claims));
  private readonly creates = new StatementBatcher<Creation, { pushed: boolean } | undefined>((creations) => this.insertTasks(creations));

  constructor(
    private readonly pool: Pool,
    private readonly options: PostgresTaskStoreOptions = {},
  ) {
    const schema = schemaIdentifier(options.schema ?? DEFAULT_A2A_SCHEMA);
    this.tasks = `${schema}.a2a_tasks`;
    this.events = `${schema}.a2a_task_events`;
    this.messageIds = `${schema}.a2a_message_ids`;
    this.leaseTable = `${schema}.a2a_task_leases`;
    logIdleConnectionErrors(pool);
    this.db = unreachableAsUnavailable(pool);
    this.leases = new PostgresTaskLeases(this.db, this.leaseTable);
    this.outbox = `${schema}.a2a_push_outbox`;
    this.pushConfigs = `${schema}.a2a_push_configs`;
    this.push = new PostgresPushStore(this.db, { configs: this.pushConfigs, outbox: this.outbox, deadLetters: `${schema}.a2a_push_dead_letters` });
    this.maxHistoryLength = options.maxHistoryLength ?? DEFAULT_MAX_HISTORY;
    const cached = options.terminalTaskCache ?? DEFAULT_TERMINAL_TASK_CACHE;
    if (!(Number.isInteger(cached) && cached >= 0)) throw new RangeError(`terminalTaskCache must be a whole number, 0 or more, got ${options.terminalTaskCache}`);
    this.terminal = new TerminalTasks(cached);
    if (!(this.maxHistoryLength >= 1)) throw new RangeError(`maxHistoryLength must be at least 1, got ${options.maxHistoryLength}`);
    if (options.retention !== false) {
      const afterMs = options.retention?.afterMs ?? DEFAULT_RETENTION_MS;
      const everyMs = options.retention?.everyMs ?? DEFAULT_PRUNE_EVERY_MS;
      if (!(Number.isInteger(afterMs) && afterMs >= 0 && Number.isInteger(everyMs) && everyMs >= 1000)) {
        throw new RangeError(`retention needs afterMs ≥ 0 and everyMs ≥ 1000 (whole ms), got ${JSON.stringify(options.retention)}`);
      }
      // Every replica runs it: the deletes are idempotent, and one that dies leaves no backlog behind.
      this.janitor = setInterval(() => void this.prune(afterMs).catch((error: Error) => new Logger(PostgresTaskStore.name).warn(`Pruning old rows failed: ${error.message}`)), everyMs);
      this.janitor.unref();
    }
  }

  async create(task: Task, skillId: string, scope: TaskScope, then: readonly TaskChange[] = []): Promise<StoredTask> {
    const created = JSON.stringify(task);
    let stored = task;
    let json = created;
    if (then.length > 0) {
      stored = JSON.parse(created) as Task;
      for (const change of then) applyChange(stored, change, this.maxHistoryLength);
      json = JSON.stringify(stored);
    }
    const version = 1 + then.length;
    // The task as created is the first event of a config given with the message (SendMessage's inline one), then
    // each change of `then`.
    const pushed = [{ seq: 1, payload: `{"task":${created}}` }, ...pushEventsOf(then, 1).map(({ seq, payload }) => ({ seq, payload: JSON.stringify(payload) }))];
    const outcome = await this.creates.run({
      id: textKey(task.id),
      tenant: textKey(scope.tenant),
      owner: textKey(scope.owner),
      contextId: textKey(task.contextId),
      skillId,
      state: stateNumber(stored.status.state),
      version,
      task: json,
      statusMs: timestampParam(statusMs(stored)),
      changes: then.length > 0 ? JSON.stringify(then) : null,
      settles: settlesSend(stored.status.state),
      pushed,
    });
    // Ids are unique across scopes: another owner's task with this id exists, but is not revealed.
    if (outcome === undefined) throw new ConcurrentModificationError(task.id);
    if (outcome.pushed) this.push.enqueued();
    this.remember(task.id, scope, version, skillId, json, stored.status.state);
    return { task: JSON.parse(json) as Task, version, skillId };
  }

  async get(id: string, scope: TaskScope): Promise<StoredTask | undefined> {
    const cached = this.terminal.get(id, scope);
    if (cached) return cached;
    const row = await this.row(id, scope);
    if (!row) return undefined;
    const stored = { task: row.task, version: Number(row.version), skillId: row.skill_id };
    if (isTerminal(row.task.status.state)) this.terminal.put(id, scope, stored.version, stored.skillId, JSON.stringify(row.task));
    return stored;
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
      this.db.query<{ total: string }>(`SELECT count(*) AS total FROM ${this.tasks} WHERE ${filter}`, countParams),
      this.db.query<{ task: Task }>(
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

  async update(id: string, scope: TaskScope, expectedVersion: number, changes: readonly TaskChange[], holder?: string): Promise<number> {
    const { task, skillId } = this.written.take(id, scope, expectedVersion) ?? (await this.rowAt(id, scope, expectedVersion));
    // No event to record, and its seq would be the current version's.
    if (changes.length === 0) return expectedVersion;
    for (const change of changes) applyChange(task, change, this.maxHistoryLength);
    const version = expectedVersion + changes.length;
    const events = pushEventsOf(changes, expectedVersion);
    const taskJson = JSON.stringify(task);
    // One statement, so one transaction: the version check (re-evaluated on the latest row if a concurrent writer
    // holds it), the task, its event and the deliveries to the task's webhooks commit together or not at all.
    const { rows } = await this.db.query<{ pushed: string }>(
      `WITH updated AS (
         UPDATE ${this.tasks} SET task = $5, version = $6, state = $7, status_ts = ${statusTs('$8')}
         WHERE tenant = $1 AND owner = $2 AND id = $3 AND version = $4${holder === undefined ? '' : ` AND EXISTS (SELECT FROM ${this.leaseTable} WHERE task_id = $3 AND replica_id = $12)`} RETURNING id),
       logged AS (INSERT INTO ${this.events} (task_id, seq, payload) SELECT id, $6, $9 FROM updated),
       pushed AS (
         INSERT INTO ${this.outbox} (task_id, config_id, seq, payload)
         SELECT updated.id, c.config_id, e.seq, e.payload
         FROM updated JOIN ${this.pushConfigs} c ON c.task_id = updated.id CROSS JOIN unnest($10::bigint[], $11::json[]) AS e(seq, payload)
         RETURNING 1)${this.unleased(task.status.state)}
       SELECT (SELECT count(*) FROM pushed) AS pushed FROM updated`,
      [
        textKey(scope.tenant),
        textKey(scope.owner),
        textKey(id),
        expectedVersion,
        taskJson,
        version,
        stateNumber(task.status.state),
        timestampParam(statusMs(task)),
        JSON.stringify(changes),
        // Arrays, not one JSON document: taking a JSON document apart would decode its escapes, and a NUL or a lone
        // surrogate (which events may carry) has no text form in PostgreSQL.
        events.map((event) => event.seq),
        events.map((event) => JSON.stringify(event.payload)),
        ...(holder === undefined ? [] : [holder]),
      ],
    );
    if (rows.length === 0) throw new ConcurrentModificationError(id);
    if (rows[0].pushed !== '0') this.push.enqueued();
    this.remember(id, scope, version, skillId, taskJson, task.status.state);
    return version;
  }

  /**
   * From the event rows: each holds the changes of one update and the version after them, so a row of n changes
   * stands for the n versions up to its seq. Nothing before the first update is logged (the task's creation):
   * a reader from there gets 'truncated', which means "start from the task".
   */
  async readChanges(id: string, scope: TaskScope, afterVersion: number): Promise<VersionedChange[] | 'truncated' | undefined> {
    const { rows } = await this.db.query<{ version: string; seq: string | null; payload: TaskChange[] | null }>(
      `SELECT t.version, e.seq, e.payload FROM ${this.tasks} t
       LEFT JOIN ${this.events} e ON e.task_id = t.id AND e.seq > $4
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
    if (changes.length === 0 || changes[0].version !== afterVersion + 1 || changes.at(-1)!.version !== version) return 'truncated';
    return changes;
  }

  /**
   * One row per (tenant, owner, messageId); a new one takes the run's lease in the same statement. The insert's own
   * statement cannot see a row another transaction committed meanwhile, so a lost race reads the winner's row with a
   * second statement.
   */
  async claimMessageId(scope: TaskScope, messageId: string, taskId: string, lease?: LeaseRequest): Promise<string> {
    const key = [textKey(scope.tenant), textKey(scope.owner), textKey(messageId)];
    if (await this.claims.run({ key, taskId: textKey(taskId), lease })) return taskId;
    const { rows } = await this.db.query<{ task_id: string }>(
      `SELECT task_id FROM ${this.messageIds} WHERE tenant = $1 AND owner = $2 AND message_id = $3`,
      key,
    );
    return rows[0] ? untextKey(rows[0].task_id) : taskId;
  }

  async recordReply(scope: TaskScope, messageId: string, taskId: string, reply: Message): Promise<void> {
    const task = textKey(taskId);
    await this.db.query(
      `WITH released AS (DELETE FROM ${this.leaseTable} WHERE task_id = $4)
       UPDATE ${this.messageIds} SET reply = $5 WHERE tenant = $1 AND owner = $2 AND message_id = $3 AND task_id = $4`,
      [textKey(scope.tenant), textKey(scope.owner), textKey(messageId), task, JSON.stringify(reply)],
    );
  }

  async replyTo(scope: TaskScope, messageId: string): Promise<Message | undefined> {
    const { rows } = await this.db.query<{ reply: Message | null }>(
      `SELECT reply FROM ${this.messageIds} WHERE tenant = $1 AND owner = $2 AND message_id = $3`,
      [textKey(scope.tenant), textKey(scope.owner), textKey(messageId)],
    );
    return rows[0]?.reply ?? undefined;
  }

  /**
   * Deletes the event rows of tasks terminal for more than `olderThanMs` (a reader resuming one of those gets the
   * final task instead of the events it missed) and the message ids older than that (a send retried that late starts
   * a new task), and the push configs of those tasks once nothing is left to deliver. Returns how many rows of each went.
   */
  async prune(olderThanMs: number): Promise<{ events: number; messageIds: number; pushConfigs: number }> {
    const deleted = { events: 0, messageIds: 0, pushConfigs: 0 };
    for (;;) {
      const { rowCount } = await this.db.query(
        `DELETE FROM ${this.events} WHERE ctid IN (
           SELECT e.ctid FROM ${this.events} e JOIN ${this.tasks} t ON t.id = e.task_id
           WHERE t.state IN (3, 4, 5, 7) AND t.status_ts < now() - $1 * interval '1 millisecond' LIMIT ${PRUNE_BATCH})`,
        [olderThanMs],
      );
      deleted.events += rowCount ?? 0;
      if ((rowCount ?? 0) < PRUNE_BATCH) break;
    }
    for (;;) {
      const { rowCount } = await this.db.query(
        `DELETE FROM ${this.messageIds} WHERE ctid IN (
           SELECT ctid FROM ${this.messageIds} WHERE created_at < now() - $1 * interval '1 millisecond' LIMIT ${PRUNE_BATCH})`,
        [olderThanMs],
      );
      deleted.messageIds += rowCount ?? 0;
      if ((rowCount ?? 0) < PRUNE_BATCH) break;
    }
    // Webhooks of tasks that ended that long ago, or whose task never came (a send answered by a message), once
    // nothing is left to deliver to them.
    const { rowCount } = await this.db.query(
      `DELETE FROM ${this.pushConfigs} c
       WHERE c.created_at < now() - $1 * interval '1 millisecond'
         AND NOT EXISTS (SELECT 1 FROM ${this.tasks} t WHERE t.id = c.task_id AND (t.state NOT IN (3, 4, 5, 7) OR t.status_ts >= now() - $1 * interval '1 millisecond'))
         AND NOT EXISTS (SELECT 1 FROM ${this.outbox} o WHERE o.task_id = c.task_id AND o.config_id = c.config_id)`,
      [olderThanMs],
    );
    deleted.pushConfigs = rowCount ?? 0;
    return deleted;
  }

  /**
   * For health indicators: `SELECT 1` on the pool, throwing when it fails or takes more than 2 s (a connection that
   * cannot be made, a server that does not answer). An abandoned query still returns its connection to the pool.
   */
  async healthCheck(): Promise<void> {
    // pg reads `query_timeout` per query, though its types declare it for clients only.
    const probe: QueryConfig & { query_timeout: number } = { text: 'SELECT 1', query_timeout: HEALTH_CHECK_TIMEOUT_MS };
    await withinDeadline(this.pool.query(probe), HEALTH_CHECK_TIMEOUT_MS, 'PostgreSQL');
  }

  /** Ends the pool if `endPoolOnClose` is set (as `postgresTaskStore()` does for a pool it created); else nothing. */
  close(): Promise<void> {
    clearInterval(this.janitor);
    if (!this.options.endPoolOnClose) return Promise.resolve();
    return (this.closing ??= this.pool.end());
  }

  /** Nest calls this on app shutdown when the store is the module's `taskStore`, after shutdown's draining hooks. */
  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  /** A write that leaves the task terminal or interrupted also drops its lease (see `TaskLeases`): nobody runs it any more. */
  private unleased(state: TaskState): string {
    if (!settlesSend(state)) return '';
    return `,
       unleased AS (DELETE FROM ${this.leaseTable} WHERE task_id IN (SELECT id FROM updated))`;
  }

  /**
   * Claims of message ids, each row with the run's lease when it has one: whether each was new. Ids are compared as
   * the columns compare them (COLLATE "C").
   */
  private async insertClaims(claims: Claim[]): Promise<boolean[]> {
    const { rows } = await this.db.query<{ task_id: string }>(
      `WITH input AS (
         SELECT tenant, owner, message_id, task_id COLLATE "C" AS task_id, replica_id, ttl_ms, request, attempt
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[], $7::json[], $8::int[])
           AS i(tenant, owner, message_id, task_id, replica_id, ttl_ms, request, attempt)),
       claimed AS (
         INSERT INTO ${this.messageIds} (tenant, owner, message_id, task_id)
         SELECT tenant, owner, message_id, task_id FROM input ON CONFLICT DO NOTHING RETURNING task_id),
       leased AS (${PostgresTaskLeases.upsert(
         this.leaseTable,
         `SELECT i.task_id, i.tenant, i.owner, i.replica_id, now() + i.ttl_ms * interval '1 millisecond', i.request, i.attempt
          FROM input i JOIN claimed c ON c.task_id = i.task_id WHERE i.replica_id IS NOT NULL`,
       )})
       SELECT task_id FROM claimed`,
      [
        claims.map((claim) => claim.key[0]),
        claims.map((claim) => claim.key[1]),
        claims.map((claim) => claim.key[2]),
        claims.map((claim) => claim.taskId),
        claims.map((claim) => claim.lease?.replicaId ?? null),
        claims.map((claim) => claim.lease?.ttlMs ?? null),
        claims.map((claim) => (claim.lease?.restart ? JSON.stringify(claim.lease.restart) : null)),
        claims.map((claim) => claim.lease?.restart?.attempt ?? 1),
      ],
    );
    const claimed = new Set(rows.map((row) => row.task_id));
    return claims.map((claim) => claimed.has(claim.taskId));
  }

  /**
   * New tasks, each with the event row of the changes already applied to it, the deliveries to its webhooks and, if it
   * is settled already, its lease dropped: per task, whether it was created (an id taken in another scope is not) and
   * whether anything was enqueued for push.
   */
  private async insertTasks(batch: Creation[]): Promise<Array<{ pushed: boolean } | undefined>> {
    // Of several creations of one id, the first is tried and the others lose, whatever happens to it.
    const ids = new Set<string>();
    const firsts = new Set(batch.filter((creation) => !ids.has(creation.id) && ids.add(creation.id)));
    const creations = [...firsts];
    const deliveries = creations.flatMap((creation) => creation.pushed.map((event) => ({ id: creation.id, ...event })));
    const { rows } = await this.db.query<{ id: string; pushed: string }>(
      `WITH input AS (
         SELECT id COLLATE "C" AS id, tenant, owner, context_id, skill_id, state, version, task, status_ms, changes, settles
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::smallint[], $7::bigint[], $8::json[], $9::float8[],
                     $10::json[], $11::bool[])
           AS i(id, tenant, owner, context_id, skill_id, state, version, task, status_ms, changes, settles)),
       created AS (
         INSERT INTO ${this.tasks} (id, tenant, owner, context_id, skill_id, state, version, task, status_ts)
         SELECT id, tenant, owner, context_id, skill_id, state, version, task, COALESCE(to_timestamp(status_ms / 1000), '-infinity') FROM input
         ON CONFLICT (id) DO NOTHING RETURNING id),
       logged AS (
         INSERT INTO ${this.events} (task_id, seq, payload)
         SELECT i.id, i.version, i.changes FROM input i JOIN created c ON c.id = i.id WHERE i.changes IS NOT NULL),
       pushed AS (
         INSERT INTO ${this.outbox} (task_id, config_id, seq, payload)
         SELECT c.id, p.config_id, e.seq, e.payload
         FROM created c JOIN ${this.pushConfigs} p ON p.task_id = c.id
         JOIN unnest($12::text[], $13::bigint[], $14::json[]) AS e(task_id, seq, payload) ON e.task_id COLLATE "C" = c.id
         RETURNING task_id),
       unleased AS (DELETE FROM ${this.leaseTable} WHERE task_id IN (SELECT i.id FROM input i JOIN created c ON c.id = i.id WHERE i.settles))
       SELECT c.id, (SELECT count(*) FROM pushed p WHERE p.task_id = c.id) AS pushed FROM created c`,
      [
        creations.map((creation) => creation.id),
        creations.map((creation) => creation.tenant),
        creations.map((creation) => creation.owner),
        creations.map((creation) => creation.contextId),
        creations.map((creation) => creation.skillId),
        creations.map((creation) => creation.state),
        creations.map((creation) => creation.version),
        creations.map((creation) => creation.task),
        creations.map((creation) => creation.statusMs),
        creations.map((creation) => creation.changes),
        creations.map((creation) => creation.settles),
        // Arrays, not one JSON document: taking a JSON document apart would decode its escapes, and a NUL or a lone
        // surrogate (which events may carry) has no text form in PostgreSQL.
        deliveries.map((delivery) => delivery.id),
        deliveries.map((delivery) => delivery.seq),
        deliveries.map((delivery) => delivery.payload),
      ],
    );
    const created = new Map(rows.map((row) => [row.id, row.pushed !== '0']));
    return batch.map((creation) => (firsts.has(creation) && created.has(creation.id) ? { pushed: created.get(creation.id)! } : undefined));
  }

  /** What this store just wrote: the next update of an open task starts from it; a terminal one is cached for reads. */
  private remember(id: string, scope: TaskScope, version: number, skillId: string, json: string, state: TaskState): void {
    this.written.put(id, scope, version, skillId, json, state);
    if (isTerminal(state)) this.terminal.put(id, scope, version, skillId, json);
  }

  /** The task at `version`, read from its row: ConcurrentModificationError when the row is gone or has moved on. */
  private async rowAt(id: string, scope: TaskScope, version: number): Promise<{ task: Task; skillId: string }> {
    const row = await this.row(id, scope);
    if (!row || Number(row.version) !== version) throw new ConcurrentModificationError(id);
    return { task: row.task, skillId: row.skill_id };
  }

  private async row(id: string, scope: TaskScope): Promise<TaskRow | undefined> {
    const { rows } = await this.db.query<TaskRow>(`SELECT task, version, skill_id FROM ${this.tasks} WHERE tenant = $1 AND owner = $2 AND id = $3`, [
      textKey(scope.tenant),
      textKey(scope.owner),
      textKey(id),
    ]);
    return rows[0];
  }
}
