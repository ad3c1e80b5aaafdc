import type { TaskScope } from '../context/call-context.js';
import { A2aMessages } from '../a2a.messages.js';
import { A2aError } from '../errors/a2a.error.js';
import { applyChange, type TaskChange } from '../task/task-reducer.js';
import { isTerminal } from '../task/task-states.js';
import type { Message, Task } from '../protocol/a2a.types.js';
import { copyData } from './data-copy.js';
import {
  ConcurrentModificationError,
  type StoredTask,
  type TaskListQuery,
  type TaskPage,
  type TaskStore,
  type VersionedChange,
} from './task.store.js';
import { TerminalTaskLog } from './terminal-task.log.js';
import { InMemoryPushStore } from './in-memory-push.store.js';
import { pushEventsOf } from './task-push.store.js';
import { TaskOwners } from './task-owners.js';
import { copyOut, keyOf, thaw, versionOf, type LiveEntry, type Slot } from './in-memory-task.slots.js';
import { listTasks } from './in-memory-task.list.js';
import { InMemoryMessageIds } from './in-memory-message-ids.js';
import type { LeaseRequest } from './task-leases.js';
import {
  DEFAULT_MAX_RESUMABLE_CHANGES,
  DEFAULT_MAX_TASKS,
  DEFAULT_MAX_TASKS_PER_PRINCIPAL,
  MAX_RECORDS_MOVED,
  type InMemoryTaskStoreOptions,
} from './in-memory-task.options.js';

export type { InMemoryTaskStoreOptions } from './in-memory-task.options.js';

/**
 * The default store: tasks in a Map, for one process. Nothing survives a restart. Tasks are copied on the way in and
 * out (a task it returned can be changed freely), and the number it keeps is bounded by `maxTasks` and, for terminal
 * tasks, `terminalTaskTtlMs`.
 *
 * Terminal tasks, which no longer change and are most of what a long-running agent holds, move to a log outside the
 * JS heap: per terminal task the heap keeps only its id and a number. Reading one back parses its JSON, which is the
 * copy every read needs anyway.
 */
export class InMemoryTaskStore implements TaskStore {
  /** Every task, in creation order. */
  private readonly tasks = new Map<string, Slot>();
  /** Which owner holds which tasks: whose task goes when the store or an owner is full. */
  private readonly owners = new TaskOwners();
  private readonly log = new TerminalTaskLog();
  private readonly maxTasks: number;
  private readonly maxPerOwner: number;
  private readonly terminalTtlMs: number;
  private readonly maxRecent: number;
  /** The message ids seen, with their direct replies; as many as tasks are kept. */
  private readonly messageIds: InMemoryMessageIds;
  /** Push configs and their outbox, filled in the same (synchronous) write as each event. */
  readonly push = new InMemoryPushStore();
  /** Tells the log's walk which records are still the current ones (a task written after it became terminal has a newer one). */
  private readonly isCurrent = (id: string, position: number) => this.tasks.get(id) === position;
  private readonly isTerminal = (id: string) => typeof this.tasks.get(id) === 'number';

  constructor(private readonly options: InMemoryTaskStoreOptions = {}) {
    this.maxTasks = options.maxTasks ?? DEFAULT_MAX_TASKS;
    this.maxPerOwner = options.maxTasksPerPrincipal ?? DEFAULT_MAX_TASKS_PER_PRINCIPAL;
    this.terminalTtlMs = options.terminalTaskTtlMs ?? Infinity;
    this.maxRecent = options.maxResumableChanges ?? DEFAULT_MAX_RESUMABLE_CHANGES;
    this.messageIds = new InMemoryMessageIds(this.maxTasks);
    if (!(this.maxTasks >= 1)) throw new RangeError(`maxTasks must be at least 1, got ${options.maxTasks}`);
    if (!(this.maxPerOwner >= 1))
      throw new RangeError(`maxTasksPerPrincipal must be at least 1, got ${options.maxTasksPerPrincipal}`);
    if (!(this.terminalTtlMs >= 0))
      throw new RangeError(`terminalTaskTtlMs must not be negative, got ${options.terminalTaskTtlMs}`);
  }

  /** Tasks held, expired ones included until the next create sweeps them; for memory tests. */
  get taskCount(): number {
    return this.tasks.size;
  }

  async create(task: Task, skillId: string, scope: TaskScope, then: readonly TaskChange[] = []): Promise<StoredTask> {
    if (this.current(task.id) !== undefined) throw new ConcurrentModificationError(task.id);
    this.expire();
    const ownerKey = keyOf(scope);
    this.makeRoomFor(ownerKey, task.id);
    const slot = this.put(task.id, {
      tenant: scope.tenant,
      owner: scope.owner,
      ownerKey,
      skillId,
      version: 1,
      task: copyData(task),
    });
    this.evict();
    // A config given with the message that creates the task (SendMessage's inline one) gets the task first, as a stream does.
    if (this.push.hasConfigs(task.id)) this.push.enqueue(task.id, [{ seq: 1, payload: { task: copyData(task) } }]);
    if (then.length === 0) return copyOut(this.log, slot);
    this.apply(task.id, scope, 1, then);
    return copyOut(this.log, this.current(task.id)!);
  }

  /** Option `maxTasksPerPrincipal`: refuses before the skill runs when `makeRoomFor` would refuse the task. */
  admitTask(scope: TaskScope): void {
    const owner = this.owners.get(keyOf(scope));
    if (owner && owner.count >= this.maxPerOwner && owner.terminalCount === 0)
      throw new A2aError('TooManyRequests', A2aMessages.tooManyTasks(this.maxPerOwner));
  }

  async get(id: string, scope: TaskScope): Promise<StoredTask | undefined> {
    const slot = this.find(id, scope);
    return slot === undefined ? undefined : copyOut(this.log, slot);
  }

  async list(query: TaskListQuery, scope: TaskScope): Promise<TaskPage> {
    return listTasks(this.tasks, this.log, this.terminalTtlMs, query, scope);
  }

  async update(id: string, scope: TaskScope, expectedVersion: number, changes: readonly TaskChange[]): Promise<number> {
    return this.apply(id, scope, expectedVersion, changes);
  }

  private apply(id: string, scope: TaskScope, expectedVersion: number, changes: readonly TaskChange[]): number {
    const slot = this.find(id, scope);
    if (slot === undefined || versionOf(this.log, slot) !== expectedVersion) throw new ConcurrentModificationError(id);
    // The engine never writes to a terminal task; another caller of the store may: it becomes live again for this write.
    const entry = typeof slot === 'number' ? thaw(this.log.read(slot)) : slot;
    let statusChanged = entry !== slot;
    for (const change of changes) {
      applyChange(entry.task, change, this.options.maxHistoryLength, copyData);
      if ('statusUpdate' in change) statusChanged = true;
      // Kept as given: readChanges copies on the way out, and a committed change is never modified by its writer.
      this.remember(entry, change);
    }
    // Artifact chunks and history messages change the live task in place and nothing else: a stream's cost per event
    // stays independent of the task's size.
    if (statusChanged) this.put(id, entry);
    if (this.push.hasConfigs(id)) this.push.enqueue(id, pushEventsOf(changes, expectedVersion));
    return entry.version;
  }

  async readChanges(
    id: string,
    scope: TaskScope,
    afterVersion: number,
  ): Promise<VersionedChange[] | 'truncated' | undefined> {
    const slot = this.find(id, scope);
    if (slot === undefined) return undefined;
    const version = versionOf(this.log, slot);
    if (afterVersion >= version) return [];
    const recent = typeof slot === 'number' ? undefined : slot.recent;
    if (!recent?.length || recent[0].version > afterVersion + 1) return 'truncated';
    return copyData(recent.slice(afterVersion + 1 - recent[0].version));
  }

  async claimMessageId(
    scope: TaskScope,
    messageId: string,
    taskId: string,
    _lease?: LeaseRequest,
    configuration?: string,
  ): Promise<string> {
    return this.messageIds.claim(scope, messageId, taskId, configuration);
  }

  async claimedConfiguration(scope: TaskScope, messageId: string): Promise<string | undefined> {
    return this.messageIds.configurationOf(scope, messageId);
  }

  async recordReply(scope: TaskScope, messageId: string, taskId: string, reply: Message): Promise<void> {
    this.messageIds.recordReply(scope, messageId, taskId, reply);
  }

  async replyTo(scope: TaskScope, messageId: string): Promise<Message | undefined> {
    return this.messageIds.replyTo(scope, messageId);
  }

  /** Counts the change into the entry's version and keeps it for resuming readers. */
  private remember(entry: LiveEntry, change: TaskChange): void {
    entry.version += 1;
    if (this.maxRecent === 0) return;
    const recent = (entry.recent ??= []);
    recent.push({ version: entry.version, change });
    if (recent.length > this.maxRecent) recent.shift();
  }

  /** Files the entry under `id`: as is while the task may change, in the terminal log once it cannot. */
  private put(id: string, entry: LiveEntry): Slot {
    const previous = this.tasks.get(id);
    if (typeof previous === 'number') this.log.release(previous);
    if (!isTerminal(entry.task.status.state)) {
      if (previous === undefined) this.owners.added(entry.ownerKey, id, false);
      else if (typeof previous === 'number') this.owners.reopened(entry.ownerKey, id);
      this.tasks.set(id, entry);
      return entry;
    }
    if (previous === undefined) this.owners.added(entry.ownerKey, id, true);
    else if (typeof previous !== 'number') this.owners.ended(entry.ownerKey, id);
    const position = this.log.append({
      id,
      contextId: entry.task.contextId,
      version: entry.version,
      state: entry.task.status.state,
      statusMs: Date.parse(entry.task.status.timestamp ?? ''),
      terminalAt: Date.now(),
      skillId: entry.skillId,
      tenant: entry.tenant,
      owner: entry.owner,
      json: JSON.stringify(entry.task),
    });
    this.tasks.set(id, position);
    return position;
  }

  /** The slot of a task that still exists (not expired), in `scope`. */
  private find(id: string, scope: TaskScope): Slot | undefined {
    const slot = this.current(id);
    if (slot === undefined) return undefined;
    const { tenant, owner } = typeof slot === 'number' ? this.log.summary(slot) : slot;
    return tenant === scope.tenant && owner === scope.owner ? slot : undefined;
  }

  /** The slot of a task that still exists, in any scope; an expired one is forgotten on the way. */
  private current(id: string): Slot | undefined {
    const slot = this.tasks.get(id);
    if (
      typeof slot === 'number' &&
      this.terminalTtlMs !== Infinity &&
      Date.now() - this.log.summary(slot).terminalAt >= this.terminalTtlMs
    ) {
      this.drop(id);
      return undefined;
    }
    return slot;
  }

  /** Forgets the task, with its push configs and their outbox: nothing is delivered for a task that is gone. */
  private drop(id: string): void {
    const slot = this.tasks.get(id);
    if (slot === undefined) return;
    if (typeof slot === 'number') {
      this.log.release(slot);
      this.owners.removed(keyOf(this.log.summary(slot)), id, true);
    } else {
      this.owners.removed(slot.ownerKey, id, false);
    }
    this.tasks.delete(id);
    this.push.dropTask(id);
  }

  /**
   * Option `maxTasksPerPrincipal`: an owner at its cap gives up its longest-terminal task for the new one; with none
   * terminal, the new task is refused (and the webhook registered with its message forgotten).
   */
  private makeRoomFor(ownerKey: string, taskId: string): void {
    const owner = this.owners.get(ownerKey);
    if (!owner || owner.count < this.maxPerOwner) return;
    const oldest = this.owners.oldestTerminal(owner, this.isTerminal);
    if (oldest === undefined) {
      this.push.dropTask(taskId);
      throw new A2aError('TooManyRequests', A2aMessages.tooManyTasks(this.maxPerOwner));
    }
    this.drop(oldest);
  }

  /** Drops the terminal tasks `terminalTaskTtlMs` has expired, the longest-terminal first. */
  private expire(): void {
    if (this.terminalTtlMs === Infinity) return;
    const now = Date.now();
    for (
      let oldest = this.log.oldest(this.isCurrent);
      oldest && now - oldest.terminalAt >= this.terminalTtlMs;
      oldest = this.log.oldest(this.isCurrent)
    ) {
      this.drop(oldest.id);
      this.log.skip(oldest.position);
    }
  }

  /**
   * Beyond `maxTasks`, drops a task of the owner holding the most: its longest-terminal one, else its oldest. Then, if
   * the log is mostly records of tasks dropped out of its order, moves a few of its oldest current records to its end,
   * so the walk can pass the released ones and give their slabs back.
   */
  private evict(): void {
    while (this.tasks.size > this.maxTasks) {
      const owner = this.owners.largest();
      const id = owner && (this.owners.oldestTerminal(owner, this.isTerminal) ?? owner.live.values().next().value);
      if (id === undefined) return;
      this.drop(id);
    }
    for (let moved = 0; moved < MAX_RECORDS_MOVED && this.log.wasteful; moved++) {
      const oldest = this.log.oldest(this.isCurrent);
      if (!oldest) return;
      const position = this.log.append(this.log.read(oldest.position));
      this.log.release(oldest.position);
      this.tasks.set(oldest.id, position);
    }
  }
}
