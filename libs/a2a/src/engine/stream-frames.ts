import type { A2aCallContext } from '../context/call-context.js';
import { A2aError } from '../errors/a2a.error.js';
import type { VersionedChange } from '../store/task.store.js';
import type { TaskStreamItem } from './task-stream.js';
import { isInterrupted, isTerminal } from '../task/task-states.js';

/** SendStreamingMessage closes at a terminal or interrupted state (spec §11.7); SubscribeToTask only at a terminal one. */
export function endsSendStream(item: TaskStreamItem): boolean {
  if (!('response' in item)) return true;
  if (item.final) return true;
  const response = item.response;
  const state =
    'task' in response
      ? response.task.status.state
      : 'statusUpdate' in response
        ? response.statusUpdate.status.state
        : undefined;
  // AUTH_REQUIRED ends the stream only with the skill's run (the settled record): a skill waiting for an out-of-band
  // credential keeps its caller's stream open (spec §7.6.1).
  return state !== undefined && (isTerminal(state) || (isInterrupted(state) && state !== 'TASK_STATE_AUTH_REQUIRED'));
}

/** `Last-Event-ID` as a task version; InvalidParams for anything but a non-negative integer. */
export function resumeCursorOf(call: A2aCallContext): number | undefined {
  if (call.lastEventId === undefined) return undefined;
  const cursor = /^\d{1,15}$/.test(call.lastEventId.trim()) ? Number(call.lastEventId.trim()) : NaN;
  if (!Number.isSafeInteger(cursor)) {
    throw A2aError.invalidParams([
      { field: 'Last-Event-ID', description: 'must be the id of an event of this stream (a non-negative integer)' },
    ]);
  }
  return cursor;
}

/** The stream frames of missed changes: status and artifact updates; a message added to the history has none. */
export function streamItemsOf(
  changes: readonly VersionedChange[],
): Array<Extract<TaskStreamItem, { response: unknown }>> {
  const items: Array<Extract<TaskStreamItem, { response: unknown }>> = [];
  for (const { version, change } of changes) {
    if ('historyMessage' in change) continue;
    const final = 'statusUpdate' in change && isTerminal(change.statusUpdate.status.state);
    items.push({ response: change, final, seq: version });
  }
  return items;
}
