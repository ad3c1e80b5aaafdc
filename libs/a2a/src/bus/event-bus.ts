import type { Observable } from 'rxjs';
import type { StreamResponse } from '../protocol/a2a.types.js';

/** DI token of the {@link EventBus}; override it with the module's `eventBus` option. */
export const A2A_EVENT_BUS = Symbol('A2A_EVENT_BUS');

/** One committed change of a task, as every stream of that task sees it. */
export interface TaskEventRecord {
  taskId: string;
  /** The task's store version once this event was written: consecutive per task, so readers can drop duplicates. */
  seq: number;
  /** `undefined` for the `settled` marker, which streams do not forward. */
  event?: StatusOrArtifactEvent;
  /** The task reached a terminal state: every stream of it ends here. */
  final: boolean;
  /**
   * The skill's run for the latest message has ended without a terminal state (the task waits for input, or stays
   * open for follow-ups): the caller that sent that message stops waiting.
   */
  settled: boolean;
}

export type StatusOrArtifactEvent = Extract<StreamResponse, { statusUpdate: unknown } | { artifactUpdate: unknown }>;

/**
 * Carries committed task events to every subscriber, on this replica or (in a distributed implementation) on others.
 * Live only: a subscriber sees what is published after it subscribed; the snapshot comes from the store.
 */
export interface EventBus {
  publish(record: TaskEventRecord): void;
  /** Hot and without replay; subscribe before reading the snapshot so nothing falls in between. */
  watch(taskId: string): Observable<TaskEventRecord>;
  /**
   * Resolves once a `watch(taskId)` made before it receives what other replicas publish (e.g. Redis confirmed the
   * subscription): streams read their snapshot only then. Absent for a bus that delivers at once.
   */
  ready?(taskId: string): Promise<void>;
  /**
   * True for a bus shared by replicas: each replica then watches the tasks it runs, so that a cancel written by another
   * replica stops the skill here at once.
   */
  readonly spansReplicas?: boolean;
  /** Emits after the bus lost and regained its connection: streams then read what they missed from the store. */
  readonly resync$?: Observable<void>;
  /**
   * For health checks (`nestjs-a2a/terminus`): resolves when events reach other replicas, throws (with the reason) when
   * they do not, within a few seconds. Optional: a bus without it (in process) is always up.
   */
  healthCheck?(): Promise<void>;
}
