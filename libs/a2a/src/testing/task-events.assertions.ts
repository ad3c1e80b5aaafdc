import { textOf } from '../task/message-text.js';
import type { Artifact, Message, Part, StreamResponse, Task, TaskState } from '../protocol/a2a.types.js';
import type { AgentContent, SkillEvent } from '../skills/skill-event.js';

/*
 * Readers of what a stream or a skill produced, for any test runner: plain functions, and assertions that throw an
 * Error saying what was expected and what came.
 */

/** What a skill emitted (`collectSkillEvents`) or a stream carried (`TestA2aClient.streamAll`, the bindings' frames). */
export type TaskEventSequence = Iterable<SkillEvent | StreamResponse>;

/**
 * Every state in order: a stream's task snapshots (its first frame) and status updates, or a skill's status events.
 * Repeated states stay, so a sequence that goes WORKING, WORKING shows it.
 */
export function statesOf(events: TaskEventSequence): TaskState[] {
  const states: TaskState[] = [];
  for (const event of events) {
    if ('kind' in event) {
      if (event.kind === 'status') states.push(event.state);
    } else if ('task' in event) states.push(event.task.status.state);
    else if ('statusUpdate' in event) states.push(event.statusUpdate.status.state);
  }
  return states;
}

/**
 * The text of each artifact, in order: of a task's artifacts, or of each artifact update or event (a chunk's own text,
 * chunks not joined). Text parts are joined by newlines, as `SkillContext.text` joins a message's.
 */
export function artifactTextsOf(source: Task | TaskEventSequence): string[] {
  if (isTask(source)) return (source.artifacts ?? []).map((artifact) => partsText(artifact.parts));
  const texts: string[] = [];
  for (const event of source) {
    const artifact: Artifact | undefined =
      'kind' in event
        ? event.kind === 'artifact'
          ? event.artifact
          : undefined
        : 'artifactUpdate' in event
          ? event.artifactUpdate.artifact
          : undefined;
    if (artifact) texts.push(partsText(artifact.parts));
  }
  return texts;
}

/** The text of a direct reply, of the last status message, or of the last state's message: what the agent said last. */
export function lastMessageTextOf(events: TaskEventSequence): string | undefined {
  let text: string | undefined;
  for (const event of events) {
    const said = messageOf(event);
    if (said !== undefined) text = said;
  }
  return text;
}

/** Throws, listing both sequences and the agent's last words, unless `events` went through exactly `expected`. */
export function expectStates(events: TaskEventSequence, expected: readonly TaskState[]): void {
  const list = [...events];
  const actual = statesOf(list);
  if (actual.length === expected.length && actual.every((state, index) => state === expected[index])) return;
  const said = lastMessageTextOf(list);
  throw new Error(
    `Expected the states ${show(expected)}\n          but got ${show(actual)}` +
      (said === undefined ? '' : `\n  the agent last said: ${JSON.stringify(said)}`),
  );
}

function show(states: readonly TaskState[]): string {
  return states.length === 0 ? '(none)' : states.map((state) => state.replace(/^TASK_STATE_/, '')).join(' → ');
}

function messageOf(event: SkillEvent | StreamResponse): string | undefined {
  if ('kind' in event) {
    if (event.kind === 'status') return event.message === undefined ? undefined : contentText(event.message);
    if (event.kind === 'reply')
      return typeof event.message === 'string' || Array.isArray(event.message)
        ? contentText(event.message)
        : partsText(event.message.parts);
    return undefined;
  }
  if ('message' in event) return textOf(event.message);
  const message: Message | undefined =
    'task' in event
      ? event.task.status.message
      : 'statusUpdate' in event
        ? event.statusUpdate.status.message
        : undefined;
  return message && textOf(message);
}

function contentText(content: AgentContent): string {
  return typeof content === 'string' ? content : partsText(content);
}

function partsText(parts: readonly Part[]): string {
  return parts.flatMap((part) => (part.text === undefined ? [] : [part.text])).join('\n');
}

function isTask(source: Task | TaskEventSequence): source is Task {
  return typeof (source as Task).status === 'object' && typeof (source as Task).id === 'string';
}
