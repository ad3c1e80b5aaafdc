import type { OnApplicationShutdown } from '@nestjs/common';
import type { Pool, QueryConfig } from 'pg';
import { DEFAULT_MAX_HISTORY } from '../a2a.constants.js';
import type { TaskScope } from '../context/call-context.js';
import { applyChange, type TaskChange } from '../task/task-reducer.js';
import type { Message, Task, TaskState } from '../protocol/a2a.types.js';
import { isTerminal, settlesSend } from '../task/task-states.js';
import type { LeaseRequest } from '../store/task-leases.js';
import {
  ConcurrentModificationError,
  type StoredTask,
  type TaskListQuery,
  type TaskPage,
  type TaskStore,
  type VersionedChange,
} from '../store/task.store.js';
import { statusMs, statusTs, stateNumber, textKey, timestampParam } from './postgres-task.columns.js';
import { DEFAULT_A2A_SCHEMA } from './postgres.migrations.js';
import { PostgresTaskLeases } from './postgres-task.leases.js';
import { logIdleConnectionErrors, unreachableAsUnavailable, type Queryable } from './postgres-outages.js';
import { PostgresPushStore } from './postgres-push.store.js';
import { WrittenTasks } from './written-tasks.js';
import { TerminalTasks } from './terminal-tasks.js';
import { pushEventsOf } from '../store/task-push.store.js';
import { withinDeadline } from '../health/within-deadline.js';
import { StatementBatcher } from './statement-batcher.js';
import { tablesOf, type PostgresTaskTables } from './postgres-task.tables.js';
import { listTasks } from './postgres-task.list.js';
import { readTaskChanges } from './postgres-task.events.js';
import { pruneOldRows, startJanitor, type PrunedRows } from './postgres-task.retention.js';
import {
  claimKey,
  claimReplyOf,
  insertClaims,
  readClaim,
  recordClaimReply,
  type MessageIdClaim,
} from './postgres-message-id.claims.js';
import { insertTasks, type TaskCreation } from './postgres-task.creations.js';
import { DEFAULT_TERMINAL_TASK_CACHE, type PostgresTaskStoreOptions } from './postgres-task-store.options.js';

export type { PostgresTaskStoreOptions } from './postgres-task-store.options.js';

/** How long `healthCheck()` waits for a connection and `SELECT 1`. */
const HEALTH_CHECK_TIMEOUT_MS = 2_000;

interface TaskRow {
  task: Task;
  /** bigint: the driver returns it as a string. */
  version: string;
  skill_id: string;
}

/**
 * Tasks in PostgreSQL (tables from `migrateA2aSchema`), so they outlive the process. Every statement is filtered by
 * tenant and owner: a task outside the caller's scope does not exist for it. Each `update` commits the task and one
 * `a2a_task_events` row (seq = the new version, payload = the changes) in one statement.
 *
 * Behaves as `InMemoryTaskStore` does, except that nothing is evicted: deleting old tasks is the database's business.
 */
export class PostgresTaskStore implements TaskStore, OnApplicationShutdown {
  private readonly maxHistoryLength: number;
  private readonly tables: PostgresTaskTables;
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
  private readonly claims = new StatementBatcher<MessageIdClaim, boolean>((claims) =>
    insertClaims(this.db, this.tables, claims),
  );
  private readonly creates = new StatementBatcher<TaskCreation, { pushed: boolean } | undefined>((creations) =>
    insertTasks(this.db, this.tables, creations),
  );

  constructor(
    private readonly pool: Pool,
    private readonly options: PostgresTaskStoreOptions = {},
  ) {
    this.tables = tablesOf(options.schema ?? DEFAULT_A2A_SCHEMA);
    logIdleConnectionErrors(pool);
    this.db = unreachableAsUnavailable(pool);
    this.leases = new PostgresTaskLeases(this.db, this.tables.leases);
    this.push = new PostgresPushStore(this.db, {
      configs: this.tables.pushConfigs,
      outbox: this.tables.outbox,
      deadLetters: this.tables.deadLetters,
    });
    this.maxHistoryLength = options.maxHistoryLength ?? DEFAULT_MAX_HISTORY;
    const cached = options.terminalTaskCache ?? DEFAULT_TERMINAL_TASK_CACHE;
    if (!(Number.isInteger(cached) && cached >= 0))
      throw new RangeError(`terminalTaskCache must be a whole number, 0 or more, got ${options.terminalTaskCache}`);
    this.terminal = new TerminalTasks(cached);
    if (!(this.maxHistoryLength >= 1))
      throw new RangeError(`maxHistoryLength must be at least 1, got ${options.maxHistoryLength}`);
    this.janitor = startJanitor(options.retention, (afterMs) => this.prune(afterMs));
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
    const pushed = [
      { seq: 1, payload: `{"task":${created}}` },
      ...pushEventsOf(then, 1).map(({ seq, payload }) => ({ seq, payload: JSON.stringify(payload) })),
    ];
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
    if (isTerminal(row.task.status.state))
      this.terminal.put(id, scope, stored.version, stored.skillId, JSON.stringify(row.task));
    return stored;
  }

  list(query: TaskListQuery, scope: TaskScope): Promise<TaskPage> {
    return listTasks(this.db, this.tables.tasks, query, scope);
  }

  async update(
    id: string,
    scope: TaskScope,
    expectedVersion: number,
    changes: readonly TaskChange[],
    holder?: string,
  ): Promise<number> {
    const { task, skillId } =
      this.written.take(id, scope, expectedVersion) ?? (await this.rowAt(id, scope, expectedVersion));
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
         UPDATE ${this.tables.tasks} SET task = $5, version = $6, state = $7, status_ts = ${statusTs('$8')}
         WHERE tenant = $1 AND owner = $2 AND id = $3 AND version = $4${holder === undefined ? '' : ` AND EXISTS (SELECT FROM ${this.tables.leases} WHERE task_id = $3 AND replica_id = $12)`} RETURNING id),
       logged AS (INSERT INTO ${this.tables.events} (task_id, seq, payload) SELECT id, $6, $9 FROM updated),
       pushed AS (
         INSERT INTO ${this.tables.outbox} (task_id, config_id, seq, payload)
         SELECT updated.id, c.config_id, e.seq, e.payload
         FROM updated JOIN ${this.tables.pushConfigs} c ON c.task_id = updated.id CROSS JOIN unnest($10::bigint[], $11::json[]) AS e(seq, payload)
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

  /** The changes after `afterVersion`; 'truncated' when the event rows no longer reach back that far (see `readTaskChanges`). */
  readChanges(
    id: string,
    scope: TaskScope,
    afterVersion: number,
  ): Promise<VersionedChange[] | 'truncated' | undefined> {
    return readTaskChanges(this.db, this.tables, id, scope, afterVersion);
  }

  /**
   * One row per (tenant, owner, messageId), with the send's configuration digest; a new one takes the run's lease in
   * the same statement. The insert's own statement cannot see a row another transaction committed meanwhile, so a
   * lost race reads the winner's row with a second statement.
   */
  async claimMessageId(
    scope: TaskScope,
    messageId: string,
    taskId: string,
    lease?: LeaseRequest,
    configuration?: string,
  ): Promise<string> {
    const key = claimKey(scope, messageId);
    if (await this.claims.run({ key, taskId: textKey(taskId), lease, configuration })) return taskId;
    return (await readClaim(this.db, this.tables, key))?.taskId ?? taskId;
  }

  async claimedConfiguration(scope: TaskScope, messageId: string): Promise<string | undefined> {
    return (await readClaim(this.db, this.tables, claimKey(scope, messageId)))?.configuration;
  }

  recordReply(scope: TaskScope, messageId: string, taskId: string, reply: Message): Promise<void> {
    return recordClaimReply(this.db, this.tables, claimKey(scope, messageId), taskId, reply);
  }

  replyTo(scope: TaskScope, messageId: string): Promise<Message | undefined> {
    return claimReplyOf(this.db, this.tables, claimKey(scope, messageId));
  }

  /**
   * Deletes the event rows of tasks terminal for more than `olderThanMs` (a reader resuming one of those gets the
   * final task instead of the events it missed) and the message ids older than that (a send retried that late starts
   * a new task), and the push configs of those tasks once nothing is left to deliver. Returns how many rows of each went.
   */
  prune(olderThanMs: number): Promise<PrunedRows> {
    return pruneOldRows(this.db, this.tables, olderThanMs);
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
       unleased AS (DELETE FROM ${this.tables.leases} WHERE task_id IN (SELECT id FROM updated))`;
  }

  /** What this store just wrote: the next update of an open task starts from it; a terminal one is cached for reads. */
  private remember(
    id: string,
    scope: TaskScope,
    version: number,
    skillId: string,
    json: string,
    state: TaskState,
  ): void {
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
    const { rows } = await this.db.query<TaskRow>(
      `SELECT task, version, skill_id FROM ${this.tables.tasks} WHERE tenant = $1 AND owner = $2 AND id = $3`,
      [textKey(scope.tenant), textKey(scope.owner), textKey(id)],
    );
    return rows[0];
  }
}
