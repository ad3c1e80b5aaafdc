import type { TaskScope } from '../context/call-context.js';
import type { Message, Task, TaskState } from '../protocol/a2a.types.js';
import type { TaskChange } from '../task/task-reducer.js';
import type { LeaseRequest, TaskLeases } from './task-leases.js';
import type { TaskPushStore } from './task-push.store.js';

/** DI token of the {@link TaskStore}; override it with the module's `taskStore` option. */
export const A2A_TASK_STORE = Symbol('A2A_TASK_STORE');

/** A task as a {@link TaskStore} returns it: the task, its version and the skill that owns it. */
export interface StoredTask {
  task: Task;
  /** Bumped by every write; the next writer must name it (optimistic concurrency, so replicas cannot lose writes). */
  version: number;
  /** The skill that owns the task: follow-up messages go back to it. */
  skillId: string;
}

/** What `TaskStore.list` is asked for (ListTasks): filters, a page size and the cursor of the page before. */
export interface TaskListQuery {
  contextId?: string;
  status?: TaskState;
  /** Keeps tasks whose status timestamp is at or after this instant (ISO 8601). */
  statusTimestampAfter?: string;
  pageSize: number;
  /** An opaque cursor from an earlier page's `nextPageToken`. */
  pageToken?: string;
}

/** One page of `TaskStore.list`. */
export interface TaskPage {
  /** Newest status timestamp first, ties broken by id (descending), so cursors are stable. */
  tasks: Task[];
  /** `''` on the last page. */
  nextPageToken: string;
  /** Matches before paging. */
  totalSize: number;
}

/**
 * Where tasks live. Every call is scoped by tenant and owner: a task outside the caller's scope does not exist for it.
 * Implementations copy on the way in and out, so no caller can change stored state behind the store's back.
 */
export interface TaskStore {
  /**
   * Creates `task` at version 1, then applies `then` (versions 2, 3, …, logged as `update` logs them) in the same
   * write: how a skill's first burst of events costs one write while its readers still see each event. Returns the
   * task as stored, `then` applied.
   */
  create(task: Task, skillId: string, scope: TaskScope, then?: readonly TaskChange[]): Promise<StoredTask>;
  /** The task with this id if `scope` may see it, else undefined. */
  get(id: string, scope: TaskScope): Promise<StoredTask | undefined>;
  /**
   * Throws (an `A2aError`, e.g. TooManyRequests) when a new task of `scope` would be refused by a cap of the store, so
   * that its skill does not run for nothing; `create` still decides. Optional: without it, only `create` refuses.
   */
  admitTask?(scope: TaskScope): void;
  /** One page of the tasks `scope` may see, filtered and ordered as `query` asks (spec ListTasks). */
  list(query: TaskListQuery, scope: TaskScope): Promise<TaskPage>;
  /**
   * Applies `changes` (with `applyChange`) to the stored task if its version is still `expectedVersion`, and returns
   * the new version. Throws {@link ConcurrentModificationError} when another writer got there first, and, given
   * `holder` (a run's own write, to a store with `leases`), when replica `holder` does not hold the task's lease: a
   * run whose lease another replica reaped is fenced out before that replica has written anything.
   */
  update(
    id: string,
    scope: TaskScope,
    expectedVersion: number,
    changes: readonly TaskChange[],
    holder?: string,
  ): Promise<number>;
  /**
   * The changes committed after version `afterVersion`, oldest first, each with the version it brought the task to
   * (every change adds one): what a reconnecting stream missed (`Last-Event-ID`). Undefined when the task is not in
   * scope; `'truncated'` when the store no longer holds all of them (the reader then starts again from the task).
   * Optional: without it, resuming readers always get the task.
   */
  readChanges?(
    id: string,
    scope: TaskScope,
    afterVersion: number,
  ): Promise<VersionedChange[] | 'truncated' | undefined>;
  /**
   * Idempotent SendMessage: records that `messageId` (of a message that starts a new task) belongs to `taskId` in
   * `scope`, unless it already belongs to another task: returns the task it belongs to. A retried send thereby finds
   * the task of the first one instead of starting a second. Optional: without it, every send starts a task.
   * `lease` is given by an engine using this store's `leases`: a claim that is new takes the lease of `taskId` for
   * the run about to start, in the same write (as `leases.acquire` would); a store with `leases` must honour it.
   * `configuration` (an opaque digest of the send's configuration, from the engine) is kept with a new claim, for
   * {@link claimedConfiguration}; a store written before it existed may ignore it.
   */
  claimMessageId?(
    scope: TaskScope,
    messageId: string,
    taskId: string,
    lease?: LeaseRequest,
    configuration?: string,
  ): Promise<string>;
  /**
   * The `configuration` digest kept with the claim of `messageId` in `scope`, if any: a retried send whose
   * configuration would change the first send's outcome (push config, returnImmediately, accepted output modes) is
   * refused with InvalidParams. Optional: without it (or for a claim kept without a digest), a retry is not compared.
   */
  claimedConfiguration?(scope: TaskScope, messageId: string): Promise<string | undefined>;
  /**
   * Idempotent SendMessage answered by a message, not a task: records `reply` on the claim `taskId`'s run made of
   * `messageId`, so that a retried send gets the same message instead of a second run. A store with `leases` drops
   * the lease of `taskId` in the same write (the run is over). Optional, with {@link replyTo}: without them, a retried
   * send whose first one was answered by a message runs the skill again.
   */
  recordReply?(scope: TaskScope, messageId: string, taskId: string, reply: Message): Promise<void>;
  /** The message {@link recordReply} recorded for `messageId` in `scope`, if any. */
  replyTo?(scope: TaskScope, messageId: string): Promise<Message | undefined>;
  /** Leases of running skills, for a store that replicas share (see {@link TaskLeases}); absent for one process. */
  readonly leases?: TaskLeases;
  /**
   * Push configs and their outbox (see {@link TaskPushStore}): required by option `push`. `create` and `update` enqueue
   * a delivery per config of the task and event they commit, in the same write.
   */
  readonly push?: TaskPushStore;
  /**
   * For health checks (`nestjs-a2a/terminus`): resolves when the store can serve, throws (with the reason) when it
   * cannot, within a few seconds. Optional: a store without it (in memory) is always up.
   */
  healthCheck?(): Promise<void>;
}

/** One committed change and the task version it produced. */
export interface VersionedChange {
  version: number;
  change: TaskChange;
}

/** Thrown by `TaskStore.update` when the task's version is no longer the one the writer read: another writer got there first. */
export class ConcurrentModificationError extends Error {
  constructor(taskId: string) {
    super(`Task ${taskId} was changed by another writer`);
    this.name = 'ConcurrentModificationError';
  }
}

/** A page token the store cannot read: the engine answers InvalidParams. */
export class InvalidPageTokenError extends Error {
  constructor() {
    super('pageToken is not a token this server issued');
    this.name = 'InvalidPageTokenError';
  }
}
