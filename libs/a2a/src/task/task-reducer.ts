import type { Artifact, Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '../protocol/a2a.types.js';

/** What changes a stored task: the events a stream carries, plus a message a caller adds to the history. */
export type TaskChange =
  { statusUpdate: TaskStatusUpdateEvent } | { artifactUpdate: TaskArtifactUpdateEvent } | { historyMessage: Message };

/** Copies a value the task is about to keep; the identity when the caller hands over what it will not change. */
export type RetainedCopy = <T>(value: T) => T;

const asIs: RetainedCopy = (value) => value;

/**
 * Applies one change to `task` in place. Work is proportional to the change, never to the task, so a long stream costs
 * O(events) in total: the store and the engine each keep their own copy and apply the same changes to it.
 *
 * `copy` is applied to exactly the parts of the change the task keeps (the status, a message, an artifact or its new
 * parts), so a store that must not share objects with its callers copies no more than that.
 */
export function applyChange(
  task: Task,
  change: TaskChange,
  maxHistoryLength = Infinity,
  copy: RetainedCopy = asIs,
): void {
  if ('statusUpdate' in change) {
    const status = copy(change.statusUpdate.status);
    task.status = status;
    // The agent's status message is part of the conversation, so it joins the history as well.
    if (status.message) addToHistory(task, status.message, maxHistoryLength);
  } else if ('artifactUpdate' in change) {
    applyArtifact(task, change.artifactUpdate, copy);
  } else {
    addToHistory(task, copy(change.historyMessage), maxHistoryLength);
  }
}

/** Keeps at most `max` messages, dropping the oldest: a long conversation must not grow a task without bound. */
function addToHistory(task: Task, message: Message, max: number): void {
  const history = (task.history ??= []);
  history.push(message);
  if (history.length > max) history.splice(0, history.length - max);
}

function applyArtifact(task: Task, event: TaskArtifactUpdateEvent, copy: RetainedCopy): void {
  const artifacts = (task.artifacts ??= []);
  const id = event.artifact.artifactId;
  // Search from the end: a stream appends to the artifact it added last.
  let index = artifacts.length - 1;
  while (index >= 0 && artifacts[index].artifactId !== id) index--;
  if (index < 0) {
    artifacts.push(ownArtifact(event.artifact, copy));
  } else if (event.append) {
    const parts = artifacts[index].parts;
    for (const part of event.artifact.parts) parts.push(copy(part));
  } else {
    // A resend without `append` is the artifact's new version: fields it leaves out must not survive from the old one.
    artifacts[index] = ownArtifact(event.artifact, copy);
  }
}

// The parts array is owned by the task once appended to, so never share it with the event.
function ownArtifact(artifact: Artifact, copy: RetainedCopy): Artifact {
  const own = copy(artifact);
  return own === artifact ? { ...artifact, parts: [...artifact.parts] } : own;
}
