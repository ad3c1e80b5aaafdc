/** Options of `PostgresTaskStore` (and `postgresTaskStore()`). */
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

/** `terminalTaskCache` when unset. */
export const DEFAULT_TERMINAL_TASK_CACHE = 1000;
