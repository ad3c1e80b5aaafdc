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
export function applyChange(task: Task, change: TaskChange, maxHistoryLength = Infinity): void {
  if ('statusUpdate' in change) {
    task.status = change.statusUpdate.status;
    // The agent's status message is part of the conversation, so it joins the history as well.
    if (change.statusUpdate.status.message) addToHistory(task, change.statusUpdate.status.message, maxHistoryLength);
  } else if ('artifactUpdate' in change) {
    applyArtifact(task, change.artifactUpdate);
  } else {
    addToHistory(task, change.historyMessage, maxHistoryLength);
  }
}

/** Keeps at most `max` messages, dropping the oldest: a long conversation must not grow a task without bound. */
function addToHistory(task: Task, message: Message, max: number): void {
  const history = (task.history ??= []);
  history.push(message);
  if (history.length > max) history.splice(0, history.length - max);
}

function applyArtifact(task: Task, event: TaskArtifactUpdateEvent): void {
  const artifacts = (task.artifacts ??= []);
  const index = artifacts.findIndex((a) => a.artifactId === event.artifact.artifactId);
  if (index < 0) {
    artifacts.push(copyArtifact(event.artifact));
  } else if (event.append) {
    artifacts[index].parts.push(...event.artifact.parts);
  } else {
    // A resend without `append` is the artifact's new version: fields it leaves out must not survive from the old one.
    artifacts[index] = copyArtifact(event.artifact);
  }
}

// The parts array is owned by the task once appended to, so never share it with the event.
function copyArtifact(artifact: Artifact): Artifact {
  return { ...artifact, parts: [...artifact.parts] };
}
