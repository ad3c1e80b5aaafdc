import type { TaskScope } from '../context/call-context.js';
import { isTerminal } from '../task/task-states.js';
import type { Task, TaskState } from '../protocol/a2a.types.js';

/** Open tasks remembered at once; beyond it the oldest are forgotten (their next update reads the row). */
const MAX_WRITTEN_TASKS = 10_000;

/**
 * The JSON a store last wrote of each open task, and its version: the writer of a running task updates it again and
 * again, and reading the row back before each update would double the round trips. Only a hint: the update itself
 * still names the version, so if another replica wrote meanwhile it fails as a conflict, as it would after a read.
 */
export class WrittenTasks {
  private readonly tasks = new Map<
    string,
    { tenant: string; owner: string; version: number; skillId: string; json: string }
  >();

  /** The task at `version` if this store wrote it last (a fresh copy), and its skill; else undefined; forgotten either way. */
  take(id: string, scope: TaskScope, version: number): { task: Task; skillId: string } | undefined {
    const entry = this.tasks.get(id);
    if (!entry) return undefined;
    this.tasks.delete(id);
    if (entry.version !== version || entry.tenant !== scope.tenant || entry.owner !== scope.owner) return undefined;
    return { task: JSON.parse(entry.json) as Task, skillId: entry.skillId };
  }

  put(id: string, scope: TaskScope, version: number, skillId: string, json: string, state: TaskState): void {
    this.tasks.delete(id);
    // A terminal task is written no more.
    if (isTerminal(state)) return;
    this.tasks.set(id, { tenant: scope.tenant, owner: scope.owner, version, skillId, json });
    if (this.tasks.size > MAX_WRITTEN_TASKS) this.tasks.delete(this.tasks.keys().next().value!);
  }
}
