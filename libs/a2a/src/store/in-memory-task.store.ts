import type { TaskScope } from '../context/call-context.js';
import { applyChange, type TaskChange } from '../engine/task-reducer.js';
import type { Task } from '../protocol/a2a.types.js';
import { decodeCursor, encodeCursor, isAfterCursor, type ListCursor } from './list-cursor.js';
import {
  ConcurrentModificationError,
  type StoredTask,
  type TaskListQuery,
  type TaskPage,
  type TaskStore,
} from './task.store.js';

interface Entry extends StoredTask {
  scopeKey: string;
}

export interface InMemoryTaskStoreOptions {
  /** Most messages kept per task history (oldest dropped). Default: unbounded. */
  maxHistoryLength?: number;
}

/** The default store: tasks in a Map, for one process. Nothing survives a restart. */
export class InMemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, Entry>();

  constructor(private readonly options: InMemoryTaskStoreOptions = {}) {}

  async create(task: Task, skillId: string, scope: TaskScope): Promise<StoredTask> {
    if (this.tasks.has(task.id)) throw new ConcurrentModificationError(task.id);
    const entry: Entry = { task: structuredClone(task), version: 1, skillId, scopeKey: scopeKey(scope) };
    this.tasks.set(task.id, entry);
    return copyOut(entry);
  }

  async get(id: string, scope: TaskScope): Promise<StoredTask | undefined> {
    const entry = this.find(id, scope);
    return entry && copyOut(entry);
  }

  async list(query: TaskListQuery, scope: TaskScope): Promise<TaskPage> {
    const cursor = query.pageToken ? decodeCursor(query.pageToken) : undefined;
    const key = scopeKey(scope);
    const after = query.statusTimestampAfter ? Date.parse(query.statusTimestampAfter) : undefined;
    const matches: Task[] = [];
    for (const entry of this.tasks.values()) {
      const task = entry.task;
      if (entry.scopeKey !== key) continue;
      if (query.contextId !== undefined && task.contextId !== query.contextId) continue;
      if (query.status !== undefined && task.status.state !== query.status) continue;
      if (after !== undefined && Date.parse(task.status.timestamp ?? '') < after) continue;
      matches.push(task);
    }
    matches.sort(newestFirst);
    const start = cursor ? matches.findIndex((t) => isAfterCursor(cursorOf(t), cursor)) : 0;
    const page = start < 0 ? [] : matches.slice(start, start + query.pageSize);
    const more = start >= 0 && start + query.pageSize < matches.length;
    return {
      tasks: page.map((t) => structuredClone(t)),
      nextPageToken: more ? encodeCursor(cursorOf(page[page.length - 1])) : '',
      totalSize: matches.length,
    };
  }

  async update(id: string, scope: TaskScope, expectedVersion: number, changes: readonly TaskChange[]): Promise<number> {
    const entry = this.find(id, scope);
    if (!entry || entry.version !== expectedVersion) throw new ConcurrentModificationError(id);
    for (const change of changes) applyChange(entry.task, structuredClone(change), this.options.maxHistoryLength);
    entry.version += changes.length;
    return entry.version;
  }

  private find(id: string, scope: TaskScope): Entry | undefined {
    const entry = this.tasks.get(id);
    return entry && entry.scopeKey === scopeKey(scope) ? entry : undefined;
  }
}

function scopeKey(scope: TaskScope): string {
  return `${scope.tenant}\u0000${scope.owner}`;
}

function copyOut(entry: Entry): StoredTask {
  return { task: structuredClone(entry.task), version: entry.version, skillId: entry.skillId };
}

function cursorOf(task: Task): ListCursor {
  return { timestamp: Date.parse(task.status.timestamp ?? '') || 0, id: task.id };
}

function newestFirst(a: Task, b: Task): number {
  const ca = cursorOf(a);
  const cb = cursorOf(b);
  return cb.timestamp - ca.timestamp || (ca.id < cb.id ? 1 : ca.id > cb.id ? -1 : 0);
}
