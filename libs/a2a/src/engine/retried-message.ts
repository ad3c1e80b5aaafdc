import { canonicalJson } from '../card/signing/jcs.js';
import { A2aError } from '../errors/a2a.error.js';
import type { Message, Task } from '../protocol/a2a.types.js';

/**
 * Whether `retry`, a send whose messageId an earlier message already has, is that message sent again (a retry, which
 * gets the first send's answer) rather than another message under a reused id. What the caller wrote is compared, the
 * way each binding decodes it: the ids the server added to its copy (`taskId`, a `contextId` it made) are not, nor an
 * empty list, map or string against a missing one, so a retry over another binding still matches.
 */
export function resendsMessage(first: Message, retry: Message): boolean {
  if (retry.contextId !== undefined && retry.contextId !== first.contextId) return false;
  return canonicalJson(callerFields(first)) === canonicalJson(callerFields(retry));
}

/** The message of `task`'s history with the id and role of `message`: the one `message` would be a retry of. */
export function sentBefore(task: Task, message: Message): Message | undefined {
  return task.history?.find((earlier) => earlier.messageId === message.messageId && earlier.role === message.role);
}

/** The answer to a messageId reused for another message: the first one's answer would answer a message it never saw. */
export function reusedMessageIdError(messageId: string): A2aError {
  return A2aError.invalidParams([
    { field: 'message.messageId', description: `${messageId} is the id of another message already sent; a retry resends the same message, a new message needs a new id` },
  ]);
}

function callerFields(message: Message): unknown {
  const { role, parts, metadata, extensions, referenceTaskIds } = message;
  return withoutEmpty({ role, parts, metadata, extensions, referenceTaskIds });
}

/** `value` with undefined, empty strings, empty lists and empty maps left out, at every depth. */
function withoutEmpty(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(withoutEmpty).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (value === null || typeof value !== 'object') return value === '' ? undefined : value;
  const entries = Object.entries(value)
    .map(([key, field]) => [key, withoutEmpty(field)] as const)
    .filter(([, field]) => field !== undefined);
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}
