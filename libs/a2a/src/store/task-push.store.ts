import type { TaskScope } from '../context/call-context.js';
import type { StreamResponse } from '../protocol/a2a.types.js';
import type { TaskChange } from '../task/task-reducer.js';

/** A webhook registered for a task, as a store keeps it. */
export interface StoredPushConfig {
  taskId: string;
  id: string;
  scope: TaskScope;
  url: string;
  /** The config's `token` and `authentication`, sealed by the push service (opaque to stores; encrypted when keys are set). */
  secrets: string;
}

/** One event due at one webhook: the outbox row the dispatcher holds while it delivers it. */
export interface PushDelivery {
  config: StoredPushConfig;
  /** The task version this event brought it to: `<taskId>:<seq>` is the event's id, the same on every retry. */
  seq: number;
  payload: StreamResponse;
  /** Attempts already made. */
  attempts: number;
  /** When the event was enqueued, ms since the epoch. */
  firstAt: number;
}

/** An event given up on after every attempt, or refused for good (SSRF, 4xx): readable, and logged. */
export interface PushDeadLetter {
  tenant: string;
  taskId: string;
  configId: string;
  /** `<taskId>:<seq>`. */
  eventId: string;
  attempts: number;
  firstAt: string;
  lastAt: string;
  lastStatus?: number;
  lastError: string;
}

/**
 * Push configs and the outbox of their deliveries, for a task store that supports push notifications
 * (`TaskStore.push`). The store enqueues a delivery per (config, event) in the same write that commits the event, so
 * what was committed is delivered even if the process dies meanwhile (at least once; receivers dedup by event id).
 */
export interface TaskPushStore {
  /** Saves (or replaces, same id) a config; false when the task already has `maxPerTask` others. */
  saveConfig(config: StoredPushConfig, maxPerTask: number): Promise<boolean>;
  /** One config of the task, if `scope` may see the task. */
  getConfig(taskId: string, id: string, scope: TaskScope): Promise<StoredPushConfig | undefined>;
  /** The task's configs, oldest first. */
  listConfigs(taskId: string, scope: TaskScope): Promise<StoredPushConfig[]>;
  /** Removes the config and its pending deliveries; nothing when there is none (idempotent). */
  deleteConfig(taskId: string, id: string, scope: TaskScope): Promise<void>;
  /**
   * Deliveries due now, at most one per (task, config), the oldest pending event of each, so that a webhook gets a
   * task's events in order. Each is held for `holdMs`: if its dispatcher dies, another may take it after that.
   */
  claimDue(limit: number, holdMs: number): Promise<PushDelivery[]>;
  /** Removes a delivery the webhook accepted. */
  delivered(delivery: PushDelivery): Promise<void>;
  /** Counts a failed attempt (`error` says why) and makes the delivery due again at `atMs`. */
  retryAt(delivery: PushDelivery, atMs: number, error: string): Promise<void>;
  /**
   * Gives back a claimed delivery that was not attempted (its destination's circuit is open, or a cap held it back):
   * due again at `atMs` at the earliest, its attempts unchanged. Optional: without it, the delivery waits for its hold
   * to expire.
   */
  release?(delivery: PushDelivery, atMs: number): Promise<void>;
  /** Moves the delivery to the dead letters. */
  deadLetter(delivery: PushDelivery, letter: PushDeadLetter): Promise<void>;
  /** The latest dead letters first, of one task or all. */
  deadLetters(query: { taskId?: string; limit: number }): Promise<PushDeadLetter[]>;
  /** `listener` runs after every write that enqueued deliveries, so the dispatcher need not wait for its next look. */
  onEnqueued(listener: () => void): void;
}

/** An event's id as webhooks receive it (header `X-A2A-Event-Id`). */
export function pushEventId(taskId: string, seq: number): string {
  return `${taskId}:${seq}`;
}

/** The stream events among `changes` (a history message is none), each with the version it produced. */
export function pushEventsOf(
  changes: readonly TaskChange[],
  expectedVersion: number,
): Array<{ seq: number; payload: StreamResponse }> {
  const events: Array<{ seq: number; payload: StreamResponse }> = [];
  changes.forEach((change, index) => {
    if (!('historyMessage' in change)) events.push({ seq: expectedVersion + index + 1, payload: change });
  });
  return events;
}
