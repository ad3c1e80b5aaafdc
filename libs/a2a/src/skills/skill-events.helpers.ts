import { randomUUID } from 'node:crypto';
import type { JsonObject, JsonValue, Part } from '../protocol/a2a.types.js';
import type { AgentContent, ArtifactEvent, ReplyEvent, StatusEvent } from './skill-event.js';

/** The task is being worked on. */
export function working(message?: AgentContent): StatusEvent {
  return { kind: 'status', state: 'TASK_STATE_WORKING', message };
}

/** The task waits for the caller to answer `question` with a follow-up message on the same task. */
export function requireInput(question: AgentContent): StatusEvent {
  return { kind: 'status', state: 'TASK_STATE_INPUT_REQUIRED', message: question };
}

/** The task waits for credentials, which the caller supplies out of band (or in a follow-up message). */
export function requireAuth(explanation: AgentContent): StatusEvent {
  return { kind: 'status', state: 'TASK_STATE_AUTH_REQUIRED', message: explanation };
}

/** The task is done; its results are the artifacts emitted before. */
export function complete(message?: AgentContent): StatusEvent {
  return { kind: 'status', state: 'TASK_STATE_COMPLETED', message };
}

/** The task failed; `reason` is sent to the caller, so keep internals out of it. */
export function fail(reason: AgentContent): StatusEvent {
  return { kind: 'status', state: 'TASK_STATE_FAILED', message: reason };
}

/** The agent declines the task. */
export function reject(reason: AgentContent): StatusEvent {
  return { kind: 'status', state: 'TASK_STATE_REJECTED', message: reason };
}

/** Answers with a Message and no Task. */
export function reply(message: AgentContent): ReplyEvent {
  return { kind: 'reply', message };
}

/** Options of `artifact()`: the artifact's id, name and metadata, and how a chunk joins an earlier one. */
export interface ArtifactOptions {
  /** Defaults to a fresh id; give the same id to every chunk of one artifact. */
  artifactId?: string;
  name?: string;
  description?: string;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: JsonObject;
}

/** An artifact (or a chunk of one) from text, parts, or one structured `data` value. */
export function artifact(
  content: AgentContent | { data: JsonValue; mediaType?: string },
  options: ArtifactOptions = {},
): ArtifactEvent {
  const parts: Part[] =
    typeof content === 'string'
      ? [{ text: content }]
      : Array.isArray(content)
        ? content
        : [{ data: content.data, mediaType: content.mediaType ?? 'application/json' }];
  const { append, lastChunk, metadata, artifactId = randomUUID(), ...rest } = options;
  const event: ArtifactEvent = { kind: 'artifact', artifact: { artifactId, ...rest, parts } };
  if (append) event.append = true;
  if (lastChunk) event.lastChunk = true;
  if (metadata) event.metadata = metadata;
  return event;
}
