import type { Message, Task } from '../protocol/a2a.types.js';

/**
 * Whether a SendMessage result (`Task | Message`) is a task: an object with a string `id` and a `status`. Narrows the
 * union, so `if (isTask(answer)) client.subscribe(answer.id)` compiles.
 */
export function isTask(value: unknown): value is Task {
  return isObject(value) && typeof value.id === 'string' && isObject(value.status);
}

/** Whether a SendMessage result (`Task | Message`) is a message: an object with a string `messageId` and a `role`. */
export function isMessage(value: unknown): value is Message {
  return isObject(value) && typeof value.messageId === 'string' && typeof value.role === 'string';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
