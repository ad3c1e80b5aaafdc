import { randomUUID } from 'node:crypto';
import type { Message } from '../protocol/a2a.types.js';
import type { AgentContent, ReplyEvent } from '../skills/skill-event.js';

/** An agent message from what a skill said; `taskId` only when a task exists (P: Message). */
export function agentMessage(content: AgentContent, contextId: string, taskId?: string): Message {
  const message: Message = {
    messageId: randomUUID(),
    role: 'ROLE_AGENT',
    parts: typeof content === 'string' ? [{ text: content }] : content,
    contextId,
  };
  if (taskId) message.taskId = taskId;
  return message;
}

export function replyMessage(reply: ReplyEvent['message'], contextId: string): Message {
  if (typeof reply === 'string' || Array.isArray(reply)) return agentMessage(reply, contextId);
  return { ...reply, messageId: reply.messageId ?? randomUUID(), role: 'ROLE_AGENT', contextId };
}
