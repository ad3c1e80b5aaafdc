import { Logger } from '@nestjs/common';
import type { StatusOrArtifactEvent } from '../bus/event-bus.js';
import type { TaskScope } from '../context/call-context.js';
import type { SkillInputResult } from '../skills/skill-input.js';
import type { RegisteredSkill } from '../skills/skill.registry.js';
import type { RestartableRun } from '../store/task-leases.js';
import { ConcurrentModificationError, type StoredTask } from '../store/task.store.js';
import { now } from '../task/now.js';
import { applyChange } from '../task/task-reducer.js';
import { callOfRestart } from './restartable-run.js';
import type { RunCommitter } from './run.committer.js';
import type { RunRegistry } from './run.registry.js';
import type { SkillRunner } from './skill.runner.js';
import type { TaskWriter } from './task.writer.js';

/** Metadata key of the WORKING status a restarted run begins with: which run of the message it is. */
const ATTEMPT_METADATA_KEY = 'nestjs-a2a/attempt';

/**
 * Runs a restartable skill again on this replica when the replica that ran it died (or handed it over at shutdown).
 * Built only with a store replicas share (one with leases).
 */
export class SkillFailover {
  private readonly logger = new Logger('A2aEngine');

  constructor(
    private readonly writer: TaskWriter,
    private readonly runs: RunRegistry,
    private readonly runner: SkillRunner,
    private readonly committer: RunCommitter,
    private readonly maxHistory: number,
  ) {}

  /**
   * A restartable skill whose replica died runs again here, on the same task: WORKING is recorded with the attempt's
   * number in its metadata, then the skill gets the original message (not added to the history again) and the
   * caller's principal without its credentials. False when a write got there first (the stale run's last one, in
   * flight when its lease was taken, or a cancel): the reaper reads the task again.
   */
  async rerun(
    stored: StoredTask,
    skill: RegisteredSkill,
    scope: TaskScope,
    restart: RestartableRun,
    previousReplica: string,
  ): Promise<boolean> {
    const task = stored.task;
    const run = this.runs.add(task.id, task.contextId, scope, skill);
    run.attempt = restart.attempt + 1;
    run.tellReplica = previousReplica;
    run.state = task.status.state;
    run.version = stored.version;
    this.logger.warn(
      `Task ${task.id}: replica ${previousReplica} no longer runs it; running skill "${skill.card.id}" again (run ${run.attempt} of ${skill.maxAttempts})`,
    );
    const working: StatusOrArtifactEvent = {
      statusUpdate: {
        taskId: task.id,
        contextId: task.contextId,
        status: { state: 'TASK_STATE_WORKING', timestamp: now() },
        metadata: { [ATTEMPT_METADATA_KEY]: run.attempt },
      },
    };
    try {
      await this.writer.serialized(task.id, () =>
        this.writer.commit(task.id, scope, run.version, working, {
          committed: (version) => (run.version = version),
          alsoTo: run.tellReplica,
        }),
      );
    } catch (error) {
      this.runs.stop(run);
      if (!(error instanceof ConcurrentModificationError)) throw error;
      return false;
    }
    run.state = 'TASK_STATE_WORKING';
    applyChange(task, working, this.maxHistory);
    const history = (task.history ?? []).filter((message) => message.messageId !== restart.message.messageId);
    // The input is read again as the first run read it; one that no longer validates asks for input, whatever the mode.
    let input: SkillInputResult | undefined;
    try {
      input = await skill.input?.read(restart.message, { history, task });
    } catch (error) {
      await this.writer.serialized(task.id, () => this.committer.failRun(run, error, restart.message));
      return true;
    }
    this.runner.execute(run, restart.message, callOfRestart(restart), task, history, input);
    return true;
  }
}
