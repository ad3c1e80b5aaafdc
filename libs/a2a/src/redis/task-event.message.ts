import type { TaskEventRecord } from '../bus/event-bus.js';

/** What a task's channel carries: the record, and the replica that published it (which has delivered it already). */
export interface TaskEventMessage {
  from: string;
  record: TaskEventRecord;
}

export function encodeTaskEvent(from: string, record: TaskEventRecord): string {
  return JSON.stringify({ from, record } satisfies TaskEventMessage);
}

/**
 * The message, or undefined when it is not a record (of `taskId`, when given: a task's channel carries only its own)
 * as {@link encodeTaskEvent} writes it: anything can be published on a channel, and a wrong record would end or
 * corrupt every stream of the task.
 */
export function decodeTaskEvent(message: string, taskId?: string): TaskEventMessage | undefined {
  let decoded: unknown;
  try {
    decoded = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (!isObject(decoded) || typeof decoded.from !== 'string' || !isObject(decoded.record)) return undefined;
  const { record } = decoded;
  const valid =
    (taskId === undefined ? typeof record.taskId === 'string' : record.taskId === taskId) &&
    Number.isSafeInteger(record.seq) &&
    typeof record.final === 'boolean' &&
    typeof record.settled === 'boolean' &&
    (record.event === undefined ? record.settled : isObject(record.event) && ('statusUpdate' in record.event || 'artifactUpdate' in record.event));
  return valid ? (decoded as unknown as TaskEventMessage) : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
