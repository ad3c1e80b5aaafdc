import { Role, type Message, type Task } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';

/** A user message as @a2a-js/sdk's client takes it (its proto-shaped types: every field present). */
export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

/** The Task a send answered with; a Message instead fails the test with what came. */
export function asTask(result: Message | Task): Task {
  if ('messageId' in result) throw new Error(`Expected a Task, got a Message: ${JSON.stringify(result)}`);
  return result;
}
