import { Inject, Injectable } from '@nestjs/common';
import { scopeOf, type A2aCallContext } from '../context/call-context.js';
import { A2aError } from '../errors/a2a.error.js';
import type { Message, SendMessageRequest } from '../protocol/a2a.types.js';
import { A2aPushConfigs } from '../push/push-configs.service.js';
import type { SkillGate } from '../skills/skill-guards.js';
import { copyData } from '../store/data-copy.js';
import { A2A_TASK_STORE, type TaskStore } from '../store/task.store.js';
import { isTerminal } from '../task/task-states.js';
import { resendsMessage, reusedMessageIdError, sentBefore } from './retried-message.js';
import { RetriedSend } from './retried-send.js';
import { RunCommitter } from './run.committer.js';
import { RunRegistry } from './run.registry.js';
import { SkillAdmission } from './skill.admission.js';
import { SkillRunner } from './skill.runner.js';
import type { TaskRun } from './task-run.js';
import { TaskWriter } from './task.writer.js';

/**
 * Starts the run of a follow-up: a message to an existing task (one that asked for input), in the task's write
 * order. The message goes into the task's history before the skill runs; the caller's first answer is that task.
 */
@Injectable()
export class FollowUpStarter {
  constructor(
    @Inject(A2A_TASK_STORE) private readonly store: TaskStore,
    private readonly writer: TaskWriter,
    private readonly admission: SkillAdmission,
    private readonly runs: RunRegistry,
    private readonly runner: SkillRunner,
    private readonly committer: RunCommitter,
    private readonly pushConfigs: A2aPushConfigs,
  ) {}

  async start(request: SendMessageRequest, call: A2aCallContext, gate?: SkillGate): Promise<TaskRun> {
    const message = request.message;
    this.admission.admitMessage(message);
    const scope = scopeOf(call);
    const taskId = message.taskId!;
    return this.writer.serialized(taskId, async () => {
      const stored = await this.store.get(taskId, scope);
      if (!stored) throw A2aError.taskNotFound(taskId);
      const task = stored.task;
      if (message.contextId !== undefined && message.contextId !== task.contextId) {
        throw A2aError.invalidParams([
          { field: 'message.contextId', description: `Task ${taskId} belongs to context ${task.contextId}` },
        ]);
      }
      // A retried follow-up (its message is in the history already) gets the task, not a second run.
      const earlier = sentBefore(task, message);
      if (earlier && !resendsMessage(earlier, message)) throw reusedMessageIdError(message.messageId);
      if (earlier) throw new RetriedSend(taskId);
      if (isTerminal(task.status.state)) {
        throw new A2aError(
          'UnsupportedOperation',
          `Task ${taskId} is ${task.status.state} and accepts no more messages`,
          { taskId },
        );
      }
      if (await this.runs.isActive(taskId)) {
        // Here, or on another replica (its lease says so).
        throw new A2aError('UnsupportedOperation', `Task ${taskId} is still processing an earlier message`, { taskId });
      }
      const skill = this.admission.skillOf(stored);
      await this.admission.admitSkill(skill, call, scope, gate);
      const input = await this.admission.readInput(skill, message, task.history ?? [], task);
      const inline = request.configuration?.taskPushNotificationConfig;
      if (inline) {
        this.pushConfigs.checkInline(inline, call);
        await this.pushConfigs.registerInline(inline, taskId, call);
      }
      const userMessage: Message = { ...message, contextId: task.contextId, taskId };
      // The skill sees the task before this message; the caller's first answer is the task as this message left it.
      const previous = copyData(task);
      const version = await this.committer.addMessage(stored, scope, userMessage);
      const run = this.runs.add(taskId, task.contextId, scope, skill);
      run.state = task.status.state;
      run.version = version;
      this.runner.execute(run, userMessage, call, previous, previous.history ?? [], input);
      await this.committer.answer(run, { task, version });
      return run;
    });
  }
}
