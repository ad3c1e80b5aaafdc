import { Inject, Injectable, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { scopeOf, type A2aCallContext, type TaskScope } from '../context/call-context.js';
import type { Message, SendMessageRequest, Task } from '../protocol/a2a.types.js';
import { A2aPushConfigs } from '../push/push-configs.service.js';
import type { SkillGate } from '../skills/skill-guards.js';
import { A2A_TASK_STORE, type TaskStore } from '../store/task.store.js';
import { LeaseKeeper } from './lease.keeper.js';
import { restartableRun } from './restartable-run.js';
import { resendsMessage, reusedMessageIdError, sentBefore } from './retried-message.js';
import { RetriedSend } from './retried-send.js';
import {
  changedConfigurationError,
  configurationChanges,
  sendConfigurationDigest,
} from './send-configuration.digest.js';
import { RunRegistry } from './run.registry.js';
import { SkillAdmission } from './skill.admission.js';
import { SkillRunner } from './skill.runner.js';
import type { TaskRun } from './task-run.js';

/** How long a retried send waits for the first send's task to appear on another replica, and how often it looks. */
const CLAIM_WAIT_MS = 5_000;
const CLAIM_POLL_MS = 25;
/** How long a claim may go without its run showing up (its lease) before a retry starts one of its own. */
const CLAIM_START_MS = 1_000;

/**
 * Starts the run of a message that opens a new task: once admitted, its message id is claimed (with the run's lease,
 * on a store replicas share), so that a retried send joins the first one's run or answer rather than running again.
 */
@Injectable()
export class SkillStarter {
  constructor(
    @Inject(A2A_TASK_STORE) private readonly store: TaskStore,
    private readonly admission: SkillAdmission,
    private readonly runs: RunRegistry,
    private readonly runner: SkillRunner,
    private readonly pushConfigs: A2aPushConfigs,
    @Optional() private readonly leases?: LeaseKeeper,
  ) {}

  /** See `SkillExecutor.start`. */
  async start(
    request: SendMessageRequest,
    call: A2aCallContext,
    taskId: string,
    gate?: SkillGate,
    blocking = false,
  ): Promise<TaskRun> {
    const message = request.message;
    this.admission.admitMessage(message);
    const scope = scopeOf(call);
    const skill = await this.admission.admitNew(request, call, scope, gate);
    this.store.admitTask?.(scope);
    this.admission.checkOutputModes(request, skill);
    const input = await this.admission.readInput(skill, message, []);
    const inline = request.configuration?.taskPushNotificationConfig;
    if (inline) this.pushConfigs.checkInline(inline, call);
    const contextId = message.contextId ?? randomUUID();
    const runMessage: Message = { ...message, contextId, taskId };
    // With leases, the claim takes the run's lease in the same write.
    const lease =
      this.store.claimMessageId &&
      this.leases?.request(skill.maxAttempts ? restartableRun(runMessage, call, 1) : undefined);
    const digest = sendConfigurationDigest(request.configuration);
    const claimed = (await this.store.claimMessageId?.(scope, message.messageId, taskId, lease, digest)) ?? taskId;
    if (claimed === taskId && lease) this.leases!.granted(taskId);
    if (claimed !== taskId) {
      // A retried send: the first one's run if it is still here, else its task, never a second run.
      const earlier = this.runs.get(claimed);
      if (earlier && earlier.scope.owner === scope.owner && earlier.scope.tenant === scope.tenant) {
        if (earlier.userMessage && !resendsMessage(earlier.userMessage, message))
          throw reusedMessageIdError(message.messageId);
        await this.checkSameConfiguration(request, scope);
        return earlier;
      }
      const answer = await this.firstAnswerOf(claimed, scope, message.messageId);
      const first = answer?.task && sentBefore(answer.task, message);
      if (first && !resendsMessage(first, message)) throw reusedMessageIdError(message.messageId);
      if (answer) {
        await this.checkSameConfiguration(request, scope);
        throw new RetriedSend(claimed, answer.reply);
      }
      // The first send's run was abandoned, or its task is gone: nothing to return but a new answer.
    }
    const pushConfigId = inline && (await this.pushConfigs.registerInline(inline, taskId, call));
    const run = this.runs.add(taskId, contextId, scope, skill);
    run.pushConfigId = pushConfigId;
    run.foldFirstWrite = true;
    // An inline webhook is told each event, as a stream would be.
    run.collapseFirstWrite = blocking && !inline;
    this.runner.execute(run, runMessage, call, undefined, [], input);
    return run;
  }

  /**
   * A retry gets the first send's answer, so it must not ask for another outcome: a configuration that pushes
   * elsewhere, waits otherwise or accepts other outputs is InvalidParams, naming the fields that differ.
   */
  private async checkSameConfiguration(request: SendMessageRequest, scope: TaskScope): Promise<void> {
    const stored = await this.store.claimedConfiguration?.(scope, request.message.messageId);
    const changed = stored === undefined ? [] : configurationChanges(stored, request.configuration);
    if (changed.length > 0) throw changedConfigurationError(request.message.messageId, changed);
  }

  /**
   * How the first send of a retried send's messageId was answered: with its task (`task`), or with a message (`reply`);
   * at once, or, while another replica's lease says that run is still going (it creates the task with the skill's
   * first event), once it is known. Undefined when neither is known: the claim's run was abandoned, or its task is gone.
   */
  private async firstAnswerOf(
    taskId: string,
    scope: TaskScope,
    messageId: string,
  ): Promise<{ task?: Task; reply?: Message } | undefined> {
    let sawRun = false;
    for (let waited = 0; ; waited += CLAIM_POLL_MS) {
      // Read before the answers: a run that has stopped holding the lease has written its answer by then.
      const running = this.leases ? await this.runs.runningElsewhere(taskId) : false;
      const stored = await this.store.get(taskId, scope);
      if (stored) return { task: stored.task };
      const reply = await this.store.replyTo?.(scope, messageId);
      if (reply) return { reply };
      // One process: the claim's run would be in the registry.
      if (!this.leases) return undefined;
      if ((sawRun && !running) || waited >= (sawRun ? CLAIM_WAIT_MS : CLAIM_START_MS)) return undefined;
      sawRun ||= running;
      await sleep(CLAIM_POLL_MS);
    }
  }
}
