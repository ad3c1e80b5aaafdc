import type { TaskScope } from '../context/call-context.js';
import type { Message, ProtocolBinding } from '../protocol/a2a.types.js';

/**
 * What a restartable skill's run needs to start again on another replica: the message and the call, minus any
 * credential (the principal's id, subject, scopes and claims only).
 */
export interface RestartableRun {
  message: Message;
  principal: { id: string; subject?: string; scopes?: readonly string[]; claims?: Readonly<Record<string, unknown>> };
  tenant: string;
  binding: ProtocolBinding;
  version: string;
  extensions: readonly string[];
  /** 1 for the first run. */
  attempt: number;
}

/** The lease a new task's run takes with its message id's claim (`TaskStore.claimMessageId`): one write for both. */
export interface LeaseRequest {
  replicaId: string;
  ttlMs: number;
  restart?: RestartableRun;
}

/** A lease the reaper took from a replica that stopped renewing it. */
export interface ExpiredLease {
  taskId: string;
  scope: TaskScope;
  /** The replica that held it. */
  replicaId: string;
  /** Given when the run's skill is restartable. */
  restart?: RestartableRun;
}

/**
 * Who runs which task's skill, for replicas sharing a store: the replica that runs a skill holds its task's lease and
 * renews it; a replica that stops renewing (it died, or hangs) loses its leases to the reaper of any other, which
 * fails those tasks so that nobody waits for them forever. Times are the store's own clock, never a replica's.
 * A store shared by replicas offers it as `TaskStore.leases`; a store of one process needs none.
 *
 * The store drops a task's lease, whoever holds it, in the same write (`create` or `update`) that leaves the task
 * terminal or interrupted: nobody runs it any more. A cancel written on another replica thereby also tells the
 * skill's replica through its next renewal, should the bus's signal not reach it.
 */
export interface TaskLeases {
  /** Takes (or takes over) the lease of `taskId` for `replicaId`, for `ttlMs`; `restart` is kept for the reaper. */
  acquire(taskId: string, scope: TaskScope, replicaId: string, ttlMs: number, restart?: RestartableRun): Promise<void>;
  /**
   * Extends by `ttlMs` the leases of `taskIds` (the runs `replicaId` has) that `replicaId` still holds; returns their
   * ids. A lease of `replicaId`'s that is not listed is left to expire: its run ended here without the write that drops
   * it (the store could not be reached then), so the task must go to the reaper, not stay running forever.
   */
  renew(replicaId: string, ttlMs: number, taskIds: readonly string[]): Promise<string[]>;
  /** Ends `replicaId`'s lease of `taskId` (its run finished); nothing when the lease is not its own. */
  release(taskId: string, replicaId: string): Promise<void>;
  /**
   * Ends `replicaId`'s lease of `taskId` now, keeping what the reaper needs, so that another replica's reaper takes it
   * at its next sweep: a replica shutting down hands a restartable run over this way instead of failing its task.
   * `replicaId`'s later renewals must not extend it (its renewal timer runs until it has closed). True when
   * `replicaId` held the lease. Optional: without it, such runs are FAILED at shutdown.
   */
  handOff?(taskId: string, replicaId: string): Promise<boolean>;
  /** The replica whose unexpired lease covers `taskId`, if any: that task's skill is running there now. */
  holder(taskId: string): Promise<string | undefined>;
  /**
   * Takes up to `limit` expired leases away from their holders (each taken once, whichever replica asks), except
   * `replicaId`'s leases of `running`: a replica that wakes from a long pause renews those, unless another took them
   * meanwhile, and its runs must not be started twice beside themselves. Its other expired leases are of runs that
   * ended without their settling write, and it reaps them as any replica would.
   */
  claimExpired(limit: number, replicaId: string, running: readonly string[]): Promise<ExpiredLease[]>;
}
