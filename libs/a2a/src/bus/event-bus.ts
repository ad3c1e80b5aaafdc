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

/** The stream events a task's changes produce: a status update or an artifact update. */
export type StatusOrArtifactEvent = Extract<StreamResponse, { statusUpdate: unknown } | { artifactUpdate: unknown }>;

/**
 * Carries committed task events to every subscriber, on this replica or (in a distributed implementation) on others.
 * Live only: a subscriber sees what is published after it subscribed; the snapshot comes from the store.
 */
export interface EventBus {
  /**
   * `alsoTo`: a replica (the id it {@link join}ed with) whose watchers of the task get the record even if they watch
   * only on their replica: how a write elsewhere (a cancel, the reaper) reaches the replica whose lease says it runs
   * the task. Ignored by a bus of one process.
   */
  publish(record: TaskEventRecord, alsoTo?: string): void;
  /**
   * Hot and without replay; subscribe before reading the snapshot so nothing falls in between. `replicaOnly`: what
   * this replica publishes and what is sent to it with `alsoTo`, without listening to every replica's records of the
   * task (on Redis, without a subscription): for a task that only this replica's run writes, unless another replica
   * ends it (and then sends the record here).
   */
  watch(taskId: string, options?: { replicaOnly?: boolean }): Observable<TaskEventRecord>;
  /** On a bus shared by replicas: this replica goes by `replicaId` (its leases' holder id) for `publish`'s `alsoTo`. */
  join?(replicaId: string): void;
  /**
   * Resolves once a `watch(taskId)` made before it receives what other replicas publish (e.g. Redis confirmed the
   * subscription), at once if every watch of the task here is `replicaOnly`: streams read their snapshot only then.
   * Absent for a bus that delivers at once.
   */
  ready?(taskId: string): Promise<void>;
  /**
   * True for a bus shared by replicas: a writer that ends a task running on another replica sends it the record
   * (`alsoTo`), which stops the skill there at once.
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
