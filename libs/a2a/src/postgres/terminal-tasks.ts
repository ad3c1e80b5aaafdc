import type { TaskScope } from '../context/call-context.js';
import type { StoredTask } from '../store/task.store.js';

/**
 * Tasks in a terminal state, as JSON, most recently used last: such a task is never written again (no operation
 * changes it, and the janitor deletes only its event rows), so a copy of it is as good as the row, on every replica.
 * GetTask of a finished task (a poller's last read, a retried send's answer) then costs no round trip.
 */
export class TerminalTasks {
  private readonly tasks = new Map<
    string,
    { tenant: string; owner: string; version: number; skillId: string; json: string }
  >();

  constructor(private readonly capacity: number) {}

  /** A fresh copy of the task if it is here and in `scope`; undefined otherwise (the row then says). */
  get(id: string, scope: TaskScope): StoredTask | undefined {
    const entry = this.tasks.get(id);
    if (!entry || entry.tenant !== scope.tenant || entry.owner !== scope.owner) return undefined;
    // Most recently used last, so the oldest goes first when the cache is full.
    this.tasks.delete(id);
    this.tasks.set(id, entry);
    return { task: JSON.parse(entry.json) as StoredTask['task'], version: entry.version, skillId: entry.skillId };
  }

  put(id: string, scope: TaskScope, version: number, skillId: string, json: string): void {
    if (this.capacity === 0) return;
    this.tasks.delete(id);
    this.tasks.set(id, { tenant: scope.tenant, owner: scope.owner, version, skillId, json });
    if (this.tasks.size > this.capacity) this.tasks.delete(this.tasks.keys().next().value!);
  }
}
