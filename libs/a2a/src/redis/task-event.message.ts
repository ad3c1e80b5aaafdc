import type { TaskEventRecord } from '../bus/event-bus.js';

/**
 * What a channel carries: records published in one tick (one write of a task, often several events), in order, and
 * the replica that published them (which has delivered them already).
 */
export interface TaskEventMessage {
  from: string;
  records: TaskEventRecord[];
}

export function encodeTaskEvents(from: string, records: TaskEventRecord[]): string {
  return JSON.stringify({ from, records } satisfies TaskEventMessage);
}

/**
 * The message, or undefined when it is not a list of records (all of `taskId`, when given: a task's channel carries
 * only its own) as {@link encodeTaskEvents} writes it: anything can be published on a channel, and a wrong record
 * would end or corrupt every stream of the task.
 */
export function decodeTaskEvents(message: string, taskId?: string): TaskEventMessage | undefined {
  let decoded: unknown;
  try {
    decoded = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (
    !isObject(decoded) ||
    typeof decoded.from !== 'string' ||
    !Array.isArray(decoded.records) ||
    decoded.records.length === 0
  )
    return undefined;
  const valid = (decoded.records as unknown[]).every((record) => isRecord(record, taskId));
  return valid ? (decoded as unknown as TaskEventMessage) : undefined;
}

function isRecord(record: unknown, taskId: string | undefined): boolean {
  return (
    isObject(record) &&
    (taskId === undefined ? typeof record.taskId === 'string' : record.taskId === taskId) &&
    Number.isSafeInteger(record.seq) &&
    typeof record.final === 'boolean' &&
    typeof record.settled === 'boolean' &&
    (record.event === undefined
      ? record.settled
      : isObject(record.event) && ('statusUpdate' in record.event || 'artifactUpdate' in record.event))
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
