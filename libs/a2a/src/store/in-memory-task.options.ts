/** `maxTasks` when unset: bounds a long-running process at about 100 MB of small tasks. */
export const DEFAULT_MAX_TASKS = 100_000;
/** `maxTasksPerPrincipal` when unset. */
export const DEFAULT_MAX_TASKS_PER_PRINCIPAL = 10_000;
/** Records moved per write while the terminal log is mostly released records: bounds the work one send pays for. */
export const MAX_RECORDS_MOVED = 16;

/** Caps of the in-memory store; the module sets them from its `limits` option when it creates the default store. */
export interface InMemoryTaskStoreOptions {
  /** Most messages kept per task history (oldest dropped). Default: unbounded. */
  maxHistoryLength?: number;
  /**
   * Most tasks kept. Beyond it the store forgets a task of the owner (tenant + owner) holding the most: its
   * longest-terminal task, or, when it has no terminal task, its oldest other one (whose run then ends as soon as it
   * next writes). One caller's flood thereby never evicts another's tasks while it holds more. Default 100,000;
   * `Infinity` keeps everything.
   */
  maxTasks?: number;
  /**
   * Most tasks one owner (tenant + owner) may have stored. Beyond it the owner's own longest-terminal task is
   * forgotten; when none of its tasks is terminal, the new task is refused (TooManyRequests). Default 10,000;
   * `Infinity` for no cap.
   */
  maxTasksPerPrincipal?: number;
  /** Terminal tasks are forgotten this many ms after they became terminal. Default: kept until `maxTasks` evicts them. */
  terminalTaskTtlMs?: number;
  /**
   * Most recent changes kept per task that is not terminal yet, for readers resuming a stream (`Last-Event-ID`).
   * Default 1000. A terminal task keeps none: a reader resuming after the end gets the task itself.
   */
  maxResumableChanges?: number;
}

/** `maxResumableChanges` when unset. */
export const DEFAULT_MAX_RESUMABLE_CHANGES = 1000;
