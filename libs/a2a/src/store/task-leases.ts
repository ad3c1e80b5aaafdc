import type { TaskScope } from '../context/call-context.js';

/** A lease the reaper took from a replica that stopped renewing it. */
export interface ExpiredLease {
  taskId: string;
  scope: TaskScope;
  /** The replica that held it. */
  replicaId: string;
}

/**
 * Who runs which task's skill, for replicas sharing a store: the replica that runs a skill holds its task's lease and
 * renews it; a replica that stops renewing (it died, or hangs) loses its leases to the reaper of any other, which
 * fails those tasks so that nobody waits for them forever. Times are the store's own clock, never a replica's.
 * A store shared by replicas offers it as `TaskStore.leases`; a store of one process needs none.
 */
export interface TaskLeases {
  /** Takes (or takes over) the lease of `taskId` for `replicaId`, for `ttlMs`. */
  acquire(taskId: string, scope: TaskScope, replicaId: string, ttlMs: number): Promise<void>;
  /** Extends every lease `replicaId` holds by `ttlMs`; returns the ids of the tasks whose lease it still holds. */
  renew(replicaId: string, ttlMs: number): Promise<string[]>;
  release(taskId: string, replicaId: string): Promise<void>;
  /** Takes up to `limit` expired leases away from their holders (each taken once, whichever replica asks). */
  claimExpired(limit: number): Promise<ExpiredLease[]>;
}
