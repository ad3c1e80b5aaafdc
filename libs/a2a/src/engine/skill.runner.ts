import { Injectable } from '@nestjs/common';
import type { A2aCallContext } from '../context/call-context.js';
import { ExtensionRegistry } from '../extensions/extension.registry.js';
import { A2aObservability } from '../observability/a2a-observability.js';
import type { Message, Task } from '../protocol/a2a.types.js';
import { A2aTaskAuthorizations } from '../security/task-authorizations.js';
import type { SkillEvent } from '../skills/skill-event.js';
import type { SkillInputResult } from '../skills/skill-input.js';
import { textOf } from '../task/message-text.js';
import { RunCommitter } from './run.committer.js';
import { RunRegistry } from './run.registry.js';
import { skillEvents } from './skill-result.js';
import { signalOf, type TaskRun } from './task-run.js';
import { TaskWriter } from './task.writer.js';

/**
 * Runs a skill on a message: calls its handler (under the run's span) and hands what it emits to the
 * {@link RunCommitter} in the task's write order, gathering events that come while a write is under way into one batch.
 */
@Injectable()
export class SkillRunner {
  constructor(
    private readonly writer: TaskWriter,
    private readonly runs: RunRegistry,
    private readonly committer: RunCommitter,
    private readonly extensions: ExtensionRegistry,
    private readonly authorizations: A2aTaskAuthorizations,
    private readonly observability: A2aObservability,
  ) {}

  execute(
    run: TaskRun,
    message: Message,
    call: A2aCallContext,
    task?: Task,
    history: readonly Message[] = [],
    input?: SkillInputResult,
  ): void {
    run.userMessage = message;
    this.runs.hold(run, message, call);
    // An invalid input in mode 'input-required': the task asks for it again, and the skill is not called.
    const events$ = skillEvents(() =>
      input?.valid === false
        ? [run.skill.input!.invalidEvent(input)]
        : run.skill.handler.handle({
            message,
            text: textOf(message),
            input: input?.value,
            taskId: run.taskId,
            contextId: run.contextId,
            task,
            history,
            principal: call.principal,
            tenant: call.tenant,
            call,
            extensions: this.extensions.forSkill(run.skill.card.id, call.extensions),
            attempt: run.attempt,
            get signal() {
              return signalOf(run);
            },
            waitForAuthorization: <T>(options?: { timeoutMs?: number }) =>
              this.authorizations.wait(run.taskId, signalOf(run), options?.timeoutMs) as Promise<T>,
          }),
    );
    // The task's write chain keeps the events in order, so they need no operator of their own; a failed write fails
    // the run like a skill error would, and what the skill emits afterwards finds the run ended.
    const onEvent = (event: SkillEvent) =>
      this.committer
        .onSkillEvent(run, event, message)
        .catch((error: unknown) => this.committer.onSkillError(run, error, message));
    // The skill runs on subscription: with its span active, its own spans and the A2A calls it makes are children of it.
    run.trace = this.observability.skillRunStarted(run.taskId, run.contextId, run.skill.card.id, run.attempt);
    run.subscription = this.observability.within(run.trace, () =>
      events$.subscribe({
        next: (event) => {
          // Events that come while the task is being written (or created) wait and go together: one store write.
          if (run.batch) return void run.batch.push(event);
          // A new task is created once the skill's first burst is over (see `foldFirstWrite`).
          const fold = run.foldFirstWrite === true && run.state === undefined && event.kind !== 'reply';
          if (fold || this.writer.busy(run.taskId)) {
            const batch = (run.batch = [event]);
            return void this.writer.serialized(run.taskId, async () => {
              if (fold) await new Promise<void>((resolve) => setImmediate(resolve));
              return this.committer
                .writeBatch(run, batch, message)
                .catch((error: unknown) => this.committer.onSkillError(run, error, message));
            });
          }
          void this.writer.serialized(run.taskId, () => onEvent(event));
        },
        error: (error: unknown) =>
          void this.writer.serialized(run.taskId, () => this.committer.onSkillError(run, error, message)),
        complete: () => void this.writer.serialized(run.taskId, () => this.runs.end(run)),
      }),
    );
  }
}
