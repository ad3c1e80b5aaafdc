import type { Artifact, JsonObject, Message, Part, TaskState } from '../protocol/a2a.types.js';

/** What an agent says: plain text, or parts. The engine adds messageId, role, contextId and taskId. */
export type AgentContent = string | Part[];

/** Moves the task to `state`, optionally with a message for the caller. */
export interface StatusEvent {
  kind: 'status';
  state: TaskState;
  message?: AgentContent;
  metadata?: JsonObject;
}

/** Adds an artifact, or a chunk of one (`append` adds parts to the artifact with the same id). */
export interface ArtifactEvent {
  kind: 'artifact';
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: JsonObject;
}

/** Answers with a Message and no Task. Only valid as a skill's first event for a new conversation turn. */
export interface ReplyEvent {
  kind: 'reply';
  message: AgentContent | (Omit<Message, 'role' | 'messageId'> & { messageId?: string });
}

/** The events a skill emits, in order. */
export type SkillEvent = StatusEvent | ArtifactEvent | ReplyEvent;
