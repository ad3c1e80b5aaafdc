import type { Logger } from '@nestjs/common';
import type { StatusOrArtifactEvent } from '../bus/event-bus.js';
import type { TaskArtifactUpdateEvent, TaskState, TaskStatus, TaskStatusUpdateEvent } from '../protocol/a2a.types.js';
import type { SkillEvent } from '../skills/skill-event.js';
import { agentMessage } from '../task/agent-message.js';
import { now } from '../task/now.js';
import { canTransition } from '../task/task-states.js';
import type { TaskRun } from './task-run.js';

/**
 * Turns a skill's status or artifact event into the wire event; undefined (after logging) for an invalid one. `state`:
 * the task's state before it (what the run committed last, unless earlier events of a batch move it on).
 */
export function toStreamEvent(
  run: TaskRun,
  event: Exclude<SkillEvent, { kind: 'reply' }>,
  logger: Logger,
  state = run.state,
): StatusOrArtifactEvent | undefined {
  if (event.kind === 'artifact') {
    // Built without spreads of optional parts, which cost more than the rest: this runs for every chunk of every
    // stream. Fields keep the wire order taskId, contextId, metadata, artifact, append, lastChunk.
    const { taskId, contextId } = run;
    const update: TaskArtifactUpdateEvent = event.metadata
      ? { taskId, contextId, metadata: event.metadata, artifact: event.artifact }
      : { taskId, contextId, artifact: event.artifact };
    if (event.append) update.append = true;
    if (event.lastChunk) update.lastChunk = true;
    return { artifactUpdate: update };
  }
  const from = state ?? 'TASK_STATE_SUBMITTED';
  if (!canTransition(from, event.state)) {
    logger.warn(`Skill "${run.skill.card.id}" moved task ${run.taskId} from ${from} to ${event.state}; ignored`);
    return undefined;
  }
  const status: TaskStatus = { state: event.state, timestamp: now() };
  if (event.message !== undefined) status.message = agentMessage(event.message, run.contextId, run.taskId);
  const update: TaskStatusUpdateEvent = event.metadata
    ? { taskId: run.taskId, contextId: run.contextId, metadata: event.metadata, status }
    : { taskId: run.taskId, contextId: run.contextId, status };
  return { statusUpdate: update };
}

/** The task's state once `changes` are applied to a task in `state` (undefined: not created yet, so SUBMITTED). */
export function stateAfter(changes: readonly StatusOrArtifactEvent[], state: TaskState | undefined): TaskState {
  for (let i = changes.length - 1; i >= 0; i--) {
    const change = changes[i];
    if ('statusUpdate' in change) return change.statusUpdate.status.state;
  }
  return state ?? 'TASK_STATE_SUBMITTED';
}
