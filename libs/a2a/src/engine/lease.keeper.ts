import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { A2aModuleOptions } from '../a2a-module.options.js';
import { A2aMessages } from '../a2a.messages.js';
import type { TaskScope } from '../context/call-context.js';
import type { ExpiredLease, LeaseRequest, RestartableRun, TaskLeases } from '../store/task-leases.js';
import type { TaskStore } from '../store/task.store.js';

/** What the keeper asks of the engine. */
export interface LeaseHooks {
  /** This replica lost the lease of a task whose skill it still runs (it was reaped): the skill must stop. */
  lost(taskId: string): void;
  /** Another replica stopped renewing this lease: its task must not be left running forever. */
  reap(lease: ExpiredLease): Promise<void>;
}

/** Expired leases taken per reaper pass. */
const REAP_BATCH = 50;
const DEFAULT_LEASE_TTL_MS = 15_000;

/** This replica's keeper of leases, with a store replicas share (one with `leases`); undefined otherwise. */
export function leaseKeeperOf(store: TaskStore, options: A2aModuleOptions): LeaseKeeper | undefined {
  if (!store.leases) return undefined;
  const ttlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const renewMs = options.leaseRenewMs ?? Math.max(1, Math.floor(ttlMs / 3));
  // A renewal that comes after the lease expired would let other replicas reap healthy runs.
  if (renewMs >= ttlMs)
    throw new Error(A2aMessages.invalidOption('leaseRenewMs', renewMs, `less than leaseTtlMs (${ttlMs})`));
  return new LeaseKeeper(store.leases, ttlMs, renewMs, new Logger('A2aEngine'));
}

/**
 * This replica's side of the store's leases: takes one for every skill run, renews those of its runs at once every
 * `renewMs` (well within the TTL), gives them back when runs end, and reaps the expired leases of replicas that stopped
 * renewing theirs, and its own of runs that ended without their settling write.
 */
export class LeaseKeeper {
  /** Fresh per process: a restarted replica never renews its previous life's leases. */
  readonly replicaId = randomUUID();
  private timers: NodeJS.Timeout[] = [];
  /** The reaping one of `timers`, which a replica shutting down stops first. */
  private reaper: NodeJS.Timeout | undefined;
  /** Leases of runs here: their acquisition (which a release waits for), and whether the store has granted it. */
  private readonly held = new Map<string, { taken: Promise<boolean>; granted: boolean }>();
  private hooks?: LeaseHooks;

  constructor(
    private readonly leases: TaskLeases,
    private readonly ttlMs: number,
    private readonly renewMs: number,
    private readonly logger: Logger,
  ) {}

  /** Starts renewing this replica's leases and reaping expired ones, telling `hooks` what comes of them. */
  start(hooks: LeaseHooks): void {
    this.hooks = hooks;
    const every = Math.max(50, this.renewMs);
    this.reaper = setInterval(() => void this.reap(), every);
    this.timers = [setInterval(() => void this.renew(), every), this.reaper];
    for (const timer of this.timers) timer.unref();
  }

  stop(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }

  /**
   * A replica shutting down takes no more expired leases: it would fail the tasks of restartable skills it can no
   * longer run again, and take back the runs it hands over. It goes on renewing the leases of its runs still going.
   */
  stopReaping(): void {
    clearInterval(this.reaper);
  }

  acquire(taskId: string, scope: TaskScope, restart?: RestartableRun): void {
    const lease = { granted: false, taken: Promise.resolve(false) };
    lease.taken = this.leases.acquire(taskId, scope, this.replicaId, this.ttlMs, restart).then(
      () => (lease.granted = true),
      (error: unknown) => {
        this.failed('take the lease of', taskId, error);
        return false;
      },
    );
    this.held.set(taskId, lease);
  }

  /** What a new task's run asks of the store with its message id's claim, to take its lease in the same write. */
  request(restart?: RestartableRun): LeaseRequest {
    return { replicaId: this.replicaId, ttlMs: this.ttlMs, ...(restart ? { restart } : {}) };
  }

  /** The store granted the lease of `taskId` with its message id's claim (see {@link request}). */
  granted(taskId: string): void {
    this.held.set(taskId, { granted: true, taken: Promise.resolve(true) });
  }

  holds(taskId: string): boolean {
    return this.held.has(taskId);
  }

  /**
   * The next write of the task leaves it terminal or interrupted, and the store drops its lease in that same write:
   * forgotten here first (once it is granted), so that a renewal meanwhile does not take it for lost.
   */
  async releasedByWrite(taskId: string): Promise<void> {
    const lease = this.held.get(taskId);
    if (!lease) return;
    await lease.taken;
    if (this.held.get(taskId) === lease) this.held.delete(taskId);
  }

  /**
   * Settles once the store has the lease of `taskId` (or refused it): a caller told of the run may rely on it. False
   * when the store refused it; true otherwise, also once a settling write is about to drop it (`releasedByWrite`).
   */
  async acquired(taskId: string): Promise<boolean> {
    return (await this.held.get(taskId)?.taken) ?? true;
  }

  /** Gives the lease back (once: later calls do nothing); settles when the store has, and never rejects. */
  release(taskId: string): Promise<void> {
    const lease = this.held.get(taskId);
    if (!lease) return Promise.resolve();
    this.held.delete(taskId);
    // After the acquisition, or a late insert would outlive the run.
    return lease.taken
      .then((granted) => (granted ? this.leases.release(taskId, this.replicaId) : undefined))
      .catch((error: unknown) => this.failed('release the lease of', taskId, error));
  }

  /**
   * Hands the lease of `taskId` over to the other replicas' reapers (once: it is no longer this replica's to renew or
   * release); true when the store did. False, at once, for a store without `handOff`. Never rejects: a failure is
   * logged, and answered false.
   */
  async handOff(taskId: string): Promise<boolean> {
    const lease = this.held.get(taskId);
    if (!lease || !this.leases.handOff || !(await lease.taken)) return false;
    this.held.delete(taskId);
    try {
      return await this.leases.handOff(taskId, this.replicaId);
    } catch (error) {
      this.failed('hand over the lease of', taskId, error);
      return false;
    }
  }

  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    try {
      // Only leases granted before the renewal started can be missing from its answer for a reason.
      const granted = [...this.held].filter(([, lease]) => lease.granted).map(([taskId]) => taskId);
      const renewed = new Set(await this.leases.renew(this.replicaId, this.ttlMs, [...this.held.keys()]));
      for (const taskId of granted) if (this.held.has(taskId) && !renewed.has(taskId)) this.hooks?.lost(taskId);
    } catch (error) {
      this.failed('renew the leases of', 'its tasks', error);
    }
  }

  private async reap(): Promise<void> {
    try {
      for (const lease of await this.leases.claimExpired(REAP_BATCH, this.replicaId, [...this.held.keys()]))
        await this.hooks?.reap(lease);
    } catch (error) {
      this.failed('reap expired leases for', 'other replicas', error);
    }
  }

  private failed(what: string, of: string, error: unknown): void {
    this.logger.warn(`Could not ${what} ${of}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
