import type { TaskScope } from '../context/call-context.js';
import type { Task } from '../protocol/a2a.types.js';
import { copyData } from './data-copy.js';
import type { StoredTask, VersionedChange } from './task.store.js';
import type { TerminalRecord, TerminalTaskLog } from './terminal-task.log.js';

/** A task that may still change: kept as objects, which applyChange updates in place. */
export interface LiveEntry {
  readonly tenant: string;
  readonly owner: string;
  /** The owner's key in `TaskOwners`. */
  readonly ownerKey: string;
  readonly skillId: string;
  version: number;
  task: Task;
  /** The latest changes, oldest first (at most `maxResumableChanges`); the last one produced `version`. */
  recent?: VersionedChange[];
}

/** A live entry, or the position of the task's record in the terminal log. */
export type Slot = LiveEntry | number;

/** A terminal task made live again, for a write to it. */
export function thaw(record: TerminalRecord): LiveEntry {
  return {
    tenant: record.tenant,
    owner: record.owner,
    ownerKey: keyOf(record),
    skillId: record.skillId,
    version: record.version,
    task: JSON.parse(record.json) as Task,
  };
}

/** The owner's key (tenant + owner) of `scope`. */
export function keyOf(scope: TaskScope): string {
  return `${scope.tenant}\u0000${scope.owner}`;
}

export function versionOf(log: TerminalTaskLog, slot: Slot): number {
  return typeof slot === 'number' ? log.version(slot) : slot.version;
}

/** A copy of the slot's task, free for the caller to change. */
export function taskOf(log: TerminalTaskLog, slot: Slot): Task {
  return typeof slot === 'number' ? (JSON.parse(log.stored(slot).json) as Task) : copyData(slot.task);
}

/** A copy of the slot's task with its version and skill, free for the caller to change. */
export function copyOut(log: TerminalTaskLog, slot: Slot): StoredTask {
  if (typeof slot !== 'number') return { task: copyData(slot.task), version: slot.version, skillId: slot.skillId };
  const stored = log.stored(slot);
  return { task: JSON.parse(stored.json) as Task, version: stored.version, skillId: stored.skillId };
}
