import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { A2A_EVENT_BUS, type EventBus, type TaskEventRecord } from '../bus/event-bus.js';
import type { A2aCallContext, TaskScope } from '../context/call-context.js';
import { A2aError } from '../errors/a2a.error.js';
import type { Message } from '../protocol/a2a.types.js';
import { A2aPushConfigs } from '../push/push-configs.service.js';
import { A2aSecurityPolicy } from '../security/a2a-security.policy.js';
import type { RegisteredSkill } from '../skills/skill.registry.js';
import type { ExpiredLease } from '../store/task-leases.js';
import { A2A_TASK_STORE, type TaskStore } from '../store/task.store.js';
import { isTerminal } from '../task/task-states.js';
import { LeaseKeeper } from './lease.keeper.js';
import { restartableRun } from './restartable-run.js';
import { deferred, type TaskRun } from './task-run.js';
import { TaskWriter } from './task.writer.js';

/**
 * The skill runs of this process, by task: how a run is taken on (with its lease, on a store replicas share), how it
 * ends or is stopped, and what becomes of those still going at shutdown.
 */
@Injectable()
export class RunRegistry {
  private readonly logger = new Logger('A2aEngine');
  private readonly runs = new Map<string, TaskRun>();
  /** Runs per owner, kept only when option `security.maxActiveTasksPerPrincipal` caps them. */
  private readonly runsByOwner = new Map<string, number>();
  readonly maxRunsPerOwner: number;
  private closed = false;

  constructor(
    @Inject(A2A_TASK_STORE) private readonly store: TaskStore,
    @Inject(A2A_EVENT_BUS) private readonly bus: EventBus,
    private readonly writer: TaskWriter,
    private readonly pushConfigs: A2aPushConfigs,
    security: A2aSecurityPolicy,
    /** With a store replicas share: this replica's leases of its runs. */
    @Optional() private readonly leases?: LeaseKeeper,
  ) {
    this.maxRunsPerOwner = security.maxActiveTasksPerPrincipal;
  }

  /** Set at shutdown: no new run starts. */
  get closing(): boolean {
    return this.closed;
  }

  get(taskId: string): TaskRun | undefined {
    return this.runs.get(taskId);
  }

  /** How many runs `owner`'s messages have here. */
  runsOf(owner: string): number {
    return this.runsByOwner.get(owner) ?? 0;
  }

  add(taskId: string, contextId: string, scope: TaskScope, skill: RegisteredSkill): TaskRun {
    const run: TaskRun = {
      taskId,
      contextId,
      scope,
      skill,
      canceled: false,
      version: 0,
      first: deferred(),
      ended: false,
      attempt: 1,
    };
    this.runs.set(taskId, run);
    if (this.maxRunsPerOwner !== Infinity) this.runsByOwner.set(scope.owner, this.runsOf(scope.owner) + 1);
    return run;
  }

  /**
   * The run is about to handle `message`: it takes the task's lease (unless its message id's claim took it) and, on a
   * bus replicas share, hears of another replica ending the task.
   */
  hold(run: TaskRun, message: Message, call: A2aCallContext): void {
    if (this.leases && !this.leases.holds(run.taskId))
      this.leases.acquire(
        run.taskId,
        run.scope,
        run.skill.maxAttempts ? restartableRun(message, call, run.attempt) : undefined,
      );
    // A replica that ends the task (a cancel) sends the record here: watching this replica alone costs no subscription.
    if (this.bus.spansReplicas)
      run.cancelWatch = this.bus
        .watch(run.taskId, { replicaOnly: true })
        .subscribe((record) => this.onForeignRecord(run, record));
  }

  /** Whether a skill runs the task's latest message now, here or (its lease says) on another replica. */
  async isActive(taskId: string): Promise<boolean> {
    return this.runs.has(taskId) || (await this.runningElsewhere(taskId));
  }

  /** Whether another replica's lease says the task's skill runs there now (this replica's own runs are in `runs`). */
  async runningElsewhere(taskId: string): Promise<boolean> {
    return (await this.holderElsewhere(taskId)) !== undefined;
  }

  /** The replica whose lease says it runs `taskId`, when that is another one: a write ending the task must tell it. */
  async holderElsewhere(taskId: string): Promise<string | undefined> {
    if (!this.leases || !this.store.leases || this.runs.has(taskId)) return undefined;
    const holder = await this.store.leases.holder(taskId);
    return holder === this.leases.replicaId ? undefined : holder;
  }

  /** Starts renewing the leases of the runs here (one lost stops its run) and reaping expired ones with `reap`. */
  startLeases(reap: (lease: ExpiredLease) => Promise<void>): void {
    if (!this.leases) return;
    // Writers elsewhere that end a task running here send the record to this replica (its lease says it runs it).
    this.bus.join?.(this.leases.replicaId);
    this.leases.start({ lost: (taskId) => this.onLeaseLost(taskId), reap });
  }

  /** The run is over: forgotten here, its lease given back, and callers still waiting told that no more is coming. */
  async end(run: TaskRun): Promise<void> {
    if (run.ended) return;
    run.ended = true;
    run.trace?.end(run.state);
    run.subscription?.unsubscribe();
    run.cancelWatch?.unsubscribe();
    const released = this.drop(run);
    // A follow-up sent as soon as the caller has its answer must not find the lease still held.
    if (released) await released;
    if (run.state === undefined) {
      run.first.reject(new A2aError('InvalidAgentResponse', 'The agent ended without a reply or a task'));
      // No task came of the message: its inline webhook will never get an event.
      if (run.pushConfigId)
        await this.pushConfigs.dropInline(run.taskId, run.pushConfigId, run.scope).catch(() => undefined);
    }
    // Callers still waiting on the task learn that no more is coming for this message.
    else if (!isTerminal(run.state)) this.writer.settled(run.taskId, run.version, run.tellReplica);
  }

  /** Cancel: the skill's signal fires and its stream is dropped, so nothing it emits afterwards is written. */
  stop(run: TaskRun): void {
    run.ended = true;
    run.canceled = true;
    run.trace?.stopped();
    run.abort?.abort();
    run.subscription?.unsubscribe();
    run.cancelWatch?.unsubscribe();
    void this.drop(run);
  }

  /**
   * Shutdown: no new run starts; running skills get until `deadline` to finish; those still running then are stopped,
   * and handed to another replica (see `handOff`) or given to `abandon`, in the task's write order.
   */
  async drain(deadline: number, abandon: (run: TaskRun) => Promise<void>): Promise<void> {
    this.closed = true;
    this.leases?.stopReaping();
    while (this.runs.size > 0 && Date.now() < deadline) await sleep(Math.min(20, deadline - Date.now()));
    await Promise.all(
      [...this.runs.values()].map((run) => {
        run.abort?.abort();
        run.subscription?.unsubscribe();
        return this.writer.serialized(run.taskId, async () => {
          if (!(await this.handOff(run))) return abandon(run);
        });
      }),
    );
  }

  stopAll(): void {
    for (const run of this.runs.values()) this.stop(run);
    this.leases?.stop();
  }

  /**
   * At shutdown, a restartable skill's run with runs left, on a store replicas share: its lease is handed over, and
   * another replica's reaper runs the skill again on the task (its next sweep, within `leaseRenewMs`) rather than the
   * task failing with this replica. Its callers and streams here end with Unavailable: a retried send, or a
   * resubscription, on another replica follows the next run. False when the run is not handed over.
   */
  private async handOff(run: TaskRun): Promise<boolean> {
    const maxAttempts = run.skill.maxAttempts;
    if (!this.leases || !maxAttempts || run.attempt >= maxAttempts || run.state === undefined || run.ended)
      return false;
    if (!(await this.leases.handOff(run.taskId))) return false;
    this.logger.warn(
      `Task ${run.taskId} was still running at shutdown: another replica runs skill "${run.skill.card.id}" again (run ${run.attempt + 1} of ${maxAttempts})`,
    );
    // Ended without a write, and without the settled record that would answer its blocking callers with WORKING.
    run.ended = true;
    run.trace?.end(run.state);
    run.cancelWatch?.unsubscribe();
    this.drop(run);
    return true;
  }

  /**
   * A record of this run's task that this replica did not write: another replica ended the task (a cancel) while the
   * skill runs here. The skill stops at once; that record has already told every caller.
   */
  private onForeignRecord(run: TaskRun, record: TaskEventRecord): void {
    if (run.ended || !record.final || record.seq <= run.version || !record.event) return;
    this.logger.log(`Task ${run.taskId} was ended by another replica: its skill stops here`);
    this.stop(run);
  }

  /**
   * Another replica reaped this replica's lease (it did not renew in time: a long pause, a partition), so it has
   * failed the task, or will: the skill stops here, and its callers hear of the task from that replica's write.
   */
  private onLeaseLost(taskId: string): void {
    const run = this.runs.get(taskId);
    if (!run || run.ended) return;
    this.logger.warn(`Lost the lease of task ${taskId}: its skill stops here`);
    this.stop(run);
    // Its callers here may not have heard the write that took the task away (the record sent here was lost): they
    // stop waiting on the run and read the task from the store.
    this.writer.settled(taskId, run.version);
  }

  /** Forgets the run here (once: both ending paths may see it); settles once its lease is given back. */
  private drop(run: TaskRun): Promise<void> | undefined {
    if (this.runs.get(run.taskId) !== run) return undefined;
    this.runs.delete(run.taskId);
    const released = this.leases?.release(run.taskId);
    if (this.maxRunsPerOwner !== Infinity) {
      const left = this.runsOf(run.scope.owner) - 1;
      if (left > 0) this.runsByOwner.set(run.scope.owner, left);
      else this.runsByOwner.delete(run.scope.owner);
    }
    return released;
  }
}
