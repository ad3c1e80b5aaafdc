import { Logger } from '@nestjs/common';
import type { StatusOrArtifactEvent } from '../bus/event-bus.js';
import type { SkillRegistry } from '../skills/skill.registry.js';
import type { ExpiredLease } from '../store/task-leases.js';
import { ConcurrentModificationError, type TaskStore } from '../store/task.store.js';
import { agentMessage } from '../task/agent-message.js';
import { now } from '../task/now.js';
import { isTerminal } from '../task/task-states.js';
import type { RunRegistry } from './run.registry.js';
import type { SkillFailover } from './skill.failover.js';
import type { TaskWriter } from './task.writer.js';

/** How often the reaper retries writing FAILED when other writers change the task meanwhile. */
const MAX_REAP_ATTEMPTS = 3;

/**
 * What becomes of the tasks of replicas that stopped renewing their leases: a restartable skill with runs left runs
 * again here (see {@link SkillFailover}), any other task is FAILED. Built only with a store replicas share.
 */
export class LeaseReaper {
  private readonly logger = new Logger('A2aEngine');

  constructor(
    private readonly store: TaskStore,
    private readonly writer: TaskWriter,
    private readonly skills: SkillRegistry,
    private readonly runs: RunRegistry,
    private readonly failover: SkillFailover,
  ) {}

  /** Starts this replica's leases, and reaping those of others. */
  start(): void {
    this.runs.startLeases((lease) => this.reap(lease));
  }

  /**
   * A replica stopped renewing its lease (it died): its task is FAILED with a message saying so, committed under the
   * task's version and published like any event, so every stream of it ends and nobody waits forever.
   */
  async reap(lease: ExpiredLease): Promise<void> {
    for (let attempt = 1; attempt <= MAX_REAP_ATTEMPTS; attempt++) {
      const stored = await this.store.get(lease.taskId, lease.scope);
      if (!stored || isTerminal(stored.task.status.state)) return;
      const skill = this.skills.get(stored.skillId);
      const restart = lease.restart;
      if (restart && skill?.maxAttempts && restart.attempt < skill.maxAttempts && !this.runs.closing) {
        if (await this.failover.rerun(stored, skill, lease.scope, restart, lease.replicaId)) return;
        continue;
      }
      const text = restart
        ? `Execution lost: replica ${lease.replicaId} stopped renewing its lease during run ${restart.attempt} of ${skill?.maxAttempts ?? restart.attempt}, the last one allowed`
        : `Execution lost: replica ${lease.replicaId} stopped renewing its lease while running this task`;
      const event: StatusOrArtifactEvent = {
        statusUpdate: {
          taskId: stored.task.id,
          contextId: stored.task.contextId,
          status: {
            state: 'TASK_STATE_FAILED',
            message: agentMessage(text, stored.task.contextId, stored.task.id),
            timestamp: now(),
          },
        },
      };
      try {
        // The replica may yet be alive (a long pause): its skill stops, and its streams end, on this record.
        await this.writer.commit(stored.task.id, lease.scope, stored.version, event, { alsoTo: lease.replicaId });
        this.logger.warn(`Task ${lease.taskId} FAILED: replica ${lease.replicaId} stopped renewing its lease`);
        return;
      } catch (error) {
        if (!(error instanceof ConcurrentModificationError)) throw error;
      }
    }
  }
}
