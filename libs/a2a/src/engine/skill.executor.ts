import { Injectable, Optional } from '@nestjs/common';
import type { A2aCallContext } from '../context/call-context.js';
import type { SendMessageRequest } from '../protocol/a2a.types.js';
import type { SkillGate } from '../skills/skill-guards.js';
import { FollowUpStarter } from './follow-up.starter.js';
import { LeaseReaper } from './lease.reaper.js';
import { RunCommitter } from './run.committer.js';
import { RunRegistry } from './run.registry.js';
import { SkillStarter } from './skill.starter.js';
import type { TaskRun } from './task-run.js';

export { SHUTTING_DOWN } from './skill.admission.js';

/**
 * Runs skills: routes a new message (or a follow-up) to its skill, runs it under the task's lease, and commits what
 * it emits through the {@link TaskWriter}, one change at a time (artifact chunks in batches). It keeps no copy of a
 * task: a run knows only the state and version it last committed, and every answer is read back from the store.
 */
@Injectable()
export class SkillExecutor {
  constructor(
    private readonly newTasks: SkillStarter,
    private readonly followUps: FollowUpStarter,
    private readonly runs: RunRegistry,
    private readonly committer: RunCommitter,
    /** With a store replicas share: the reaper of other replicas' expired leases. */
    @Optional() private readonly reaper?: LeaseReaper,
  ) {}

  /**
   * Starts the run for `request`: its `first` answer is the created (or continued) task, or a direct reply. Throws
   * {@link RetriedSend} when the message already went into a task whose run is not here, or was answered by a
   * message (which it then carries). `blocking`: the caller waits
   * for the task to settle, and sees none of the events before (so a new task's first write may collapse them).
   */
  start(
    request: SendMessageRequest,
    call: A2aCallContext,
    taskId: string,
    gate?: SkillGate,
    blocking = false,
  ): Promise<TaskRun> {
    if (request.message.taskId) return this.followUps.start(request, call, gate);
    return this.newTasks.start(request, call, taskId, gate, blocking);
  }

  /** Whether a skill runs the task's latest message now, here or (its lease says) on another replica. */
  isActive(taskId: string): Promise<boolean> {
    return this.runs.isActive(taskId);
  }

  /** Cancel: the skill here (if it runs here) gets its abort signal, and nothing it emits afterwards is written. */
  stop(taskId: string): void {
    const run = this.runs.get(taskId);
    if (run) this.runs.stop(run);
  }

  startLeases(): void {
    this.reaper?.start();
  }

  /** The replica whose lease says it runs `taskId`, when that is another one: a write ending the task must tell it. */
  holderElsewhere(taskId: string): Promise<string | undefined> {
    return this.runs.holderElsewhere(taskId);
  }

  /**
   * Shutdown: no new run starts; running skills get until `deadline` to finish; those still running then are stopped
   * and their tasks FAILED with a status message saying so, which ends their streams and answers their callers, or,
   * for a restartable skill with runs left, handed to another replica.
   */
  drain(deadline: number): Promise<void> {
    return this.runs.drain(deadline, (run) => this.committer.failAtShutdown(run));
  }

  stopAll(): void {
    this.runs.stopAll();
  }
}
