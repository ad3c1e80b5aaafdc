import type { TaskState } from '../protocol/a2a.types.js';

const TERMINAL: ReadonlySet<TaskState> = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);
const INTERRUPTED: ReadonlySet<TaskState> = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);

export const ALL_TASK_STATES: readonly TaskState[] = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
];

export function isTerminal(state: TaskState): boolean {
  return TERMINAL.has(state);
}

export function isInterrupted(state: TaskState): boolean {
  return INTERRUPTED.has(state);
}

/** A blocking SendMessage answers at a terminal or interrupted state (AUTH_REQUIRED too: the caller must act). */
export function settlesSend(state: TaskState): boolean {
  return TERMINAL.has(state) || INTERRUPTED.has(state);
}

/**
 * The task lifecycle (spec §4.1.3 names the states but has no transition table): SUBMITTED → WORKING → interrupted or
 * terminal; interrupted → WORKING or terminal; any live state may end; nothing leaves a terminal state; UNSPECIFIED is
 * never emitted.
 */
export function canTransition(from: TaskState, to: TaskState): boolean {
  if (isTerminal(from) || to === 'TASK_STATE_UNSPECIFIED' || to === 'TASK_STATE_SUBMITTED') return false;
  return true;
}
