import { A2aError } from '../errors/a2a.error.js';
import type { Message, Task } from '../protocol/a2a.types.js';

/**
 * Whether `retry`, a send whose messageId an earlier message already has, is that message sent again (a retry, which
 * gets the first send's answer) rather than another message under a reused id. What the caller wrote is compared, the
 * way each binding decodes it: the ids the server added to its copy (`taskId`, a `contextId` it made) are not, nor an
 * empty list, map or string against a missing one, so a retry over another binding still matches. Compared as values,
 * member order aside: any string JSON can carry is compared as it is, lone surrogates included (which a canonical
 * form such as RFC 8785 refuses).
 */
export function resendsMessage(first: Message, retry: Message): boolean {
  if (retry.contextId !== undefined && retry.contextId !== first.contextId) return false;
  return sameJson(callerFields(first), callerFields(retry));
}

/** The message of `task`'s history with the id and role of `message`: the one `message` would be a retry of. */
export function sentBefore(task: Task, message: Message): Message | undefined {
  return task.history?.find((earlier) => earlier.messageId === message.messageId && earlier.role === message.role);
}

/** The answer to a messageId reused for another message: the first one's answer would answer a message it never saw. */
export function reusedMessageIdError(messageId: string): A2aError {
  return A2aError.invalidParams([
    {
      field: 'message.messageId',
      description: `${messageId} is the id of another message already sent; a retry resends the same message, a new message needs a new id`,
    },
  ]);
}

function callerFields(message: Message): unknown {
  const { role, parts, metadata, extensions, referenceTaskIds } = message;
  return withoutEmpty({ role, parts, metadata, extensions, referenceTaskIds });
}

/** Whether two JSON values are equal, member order aside. Depth is bounded at ingress (`limits.maxJsonDepth`). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    a === null ||
    b === null ||
    Array.isArray(a) !== Array.isArray(b)
  )
    return false;
  if (Array.isArray(a)) {
    const items = b as unknown[];
    return a.length === items.length && a.every((item, i) => sameJson(item, items[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => Object.hasOwn(right, key) && sameJson(left[key], right[key]))
  );
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
