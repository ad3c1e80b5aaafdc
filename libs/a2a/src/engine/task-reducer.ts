import type { Artifact, Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '../protocol/a2a.types.js';

/** What changes a stored task: the events a stream carries, plus a message a caller adds to the history. */
export type TaskChange =
  | { statusUpdate: TaskStatusUpdateEvent }
  | { artifactUpdate: TaskArtifactUpdateEvent }
  | { historyMessage: Message };

/**
 * Applies one change to `task` in place. Work is proportional to the change, never to the task, so a long stream costs
 * O(events) in total: the store and the engine each keep their own copy and apply the same changes to it.
 */
export function applyChange(task: Task, change: TaskChange): void {
  if ('statusUpdate' in change) {
    task.status = change.statusUpdate.status;
    // The agent's status message is part of the conversation, so it joins the history as well.
    if (change.statusUpdate.status.message) (task.history ??= []).push(change.statusUpdate.status.message);
  } else if ('artifactUpdate' in change) {
    applyArtifact(task, change.artifactUpdate);
  } else {
    (task.history ??= []).push(change.historyMessage);
  }
}

function applyArtifact(task: Task, event: TaskArtifactUpdateEvent): void {
  const artifacts = (task.artifacts ??= []);
  const existing = artifacts.find((a) => a.artifactId === event.artifact.artifactId);
  if (!existing) {
    artifacts.push(copyArtifact(event.artifact));
  } else if (event.append) {
    existing.parts.push(...event.artifact.parts);
  } else {
    Object.assign(existing, copyArtifact(event.artifact));
  }
}

// The parts array is owned by the task once appended to, so never share it with the event.
function copyArtifact(artifact: Artifact): Artifact {
  return { ...artifact, parts: [...artifact.parts] };
}
