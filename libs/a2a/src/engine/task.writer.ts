import { Inject, Injectable } from '@nestjs/common';
import { A2A_EVENT_BUS, type EventBus, type StatusOrArtifactEvent } from '../bus/event-bus.js';
import type { TaskScope } from '../context/call-context.js';
import { A2aObservability } from '../observability/a2a-observability.js';
import { A2A_TASK_STORE, type TaskStore } from '../store/task.store.js';
import { isTerminal } from '../task/task-states.js';

/** How a write is made and told. */
export interface CommitOptions {
  /** Learns the new version before anyone hears of it, so the writer never mistakes its own event for another replica's. */
  committed?: (version: number) => void;
  /** The replica that runs the task, when it is not this one (see `EventBus.publish`). */
  alsoTo?: string;
  /** A run's own write: it needs this replica to hold the task's lease (see `TaskStore.update`). */
  holder?: string;
}

/**
 * The one way a task changes: committed through the store under its version, then published, numbered by the
 * version it produced, to every stream of the task on every replica. Writes of one task are serialized, so events are
 * committed (and numbered) in the order they were produced.
 */
@Injectable()
export class TaskWriter {
  private readonly chains = new Map<string, { tail: Promise<unknown>; pending: number }>();

  constructor(
    @Inject(A2A_TASK_STORE) private readonly store: TaskStore,
    @Inject(A2A_EVENT_BUS) private readonly bus: EventBus,
    private readonly observability: A2aObservability,
  ) {}

  /** Commits `event` if the task is still at `expected`, and publishes it (see {@link commitMany}). */
  commit(
    taskId: string,
    scope: TaskScope,
    expected: number,
    event: StatusOrArtifactEvent,
    options?: CommitOptions,
  ): Promise<number> {
    return this.commitMany(taskId, scope, expected, [event], options);
  }

  /**
   * Commits several events in one write (each still gets its own version, in order) if the task is still at
   * `expected`, and publishes each: how a burst of events costs one round trip to the store instead of one per event.
   */
  async commitMany(
    taskId: string,
    scope: TaskScope,
    expected: number,
    events: readonly StatusOrArtifactEvent[],
    options: CommitOptions = {},
  ): Promise<number> {
    const version = await this.store.update(taskId, scope, expected, events, options.holder);
    options.committed?.(version);
    this.announce(taskId, scope, expected, events, options.alsoTo);
    return version;
  }

  /** Publishes `events`, committed after version `expected` (each its own version, in order), to the task's streams. */
  announce(
    taskId: string,
    scope: TaskScope,
    expected: number,
    events: readonly StatusOrArtifactEvent[],
    alsoTo?: string,
  ): void {
    events.forEach((event, index) => {
      this.observability.committed(taskId, scope, event);
      const final = 'statusUpdate' in event && isTerminal(event.statusUpdate.status.state);
      this.bus.publish({ taskId, seq: expected + index + 1, event, final, settled: false }, alsoTo);
    });
  }

  /** Whether a write of the task is under way: what comes meanwhile may wait and go in one write. */
  busy(taskId: string): boolean {
    return this.chains.has(taskId);
  }

  /** Tells the task's streams that the run for its latest message ended without a terminal state. */
  settled(taskId: string, version: number, alsoTo?: string): void {
    this.bus.publish({ taskId, seq: version, final: false, settled: true }, alsoTo);
  }

  /**
   * Runs `work` after every earlier write of the task has settled; at once (synchronously up to its first await) when
   * none is pending, which is the common case and saves a tick per event.
   */
  serialized<T>(taskId: string, work: () => Promise<T>): Promise<T> {
    const chain = this.chains.get(taskId);
    const next = chain ? chain.tail.then(work, work) : work();
    const own = chain ?? { tail: next, pending: 0 };
    if (!chain) this.chains.set(taskId, own);
    own.tail = next;
    own.pending++;
    const settle = () => {
      if (--own.pending === 0 && this.chains.get(taskId) === own) this.chains.delete(taskId);
    };
    // Also marks a failure as handled: callers that only need the order may drop `next`.
    next.then(settle, settle);
    return next;
  }
}
