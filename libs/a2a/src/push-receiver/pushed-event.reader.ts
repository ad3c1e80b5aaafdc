import { MAX_JSON_DEPTH_LIMIT, tooDeepAt } from '../json/json-depth.js';
import type { StreamResponse, TaskState } from '../protocol/a2a.types.js';

/** A push notification's body once checked: the event, the task it is about, and whether it ends that task. */
export interface PushedEvent {
  readonly event: StreamResponse;
  /** The task's id; undefined for a message outside any task. */
  readonly taskId: string | undefined;
  /** A task or status update whose state is terminal: nothing more comes for the task. */
  readonly terminal: boolean;
}

/**
 * The deepest body accepted: a free-form value (a part's `data`, `metadata`) starts at most six levels down
 * (StreamResponse → task → history → message → parts → part), and may nest as deep as the deepest `maxJsonDepth` an
 * agent built with this module can be configured to accept: whatever such an agent took in, its webhook takes too.
 */
export const MAX_PUSH_BODY_DEPTH = 6 + MAX_JSON_DEPTH_LIMIT;

const TERMINAL_STATES: ReadonlySet<TaskState> = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);
const MEMBERS = ['task', 'message', 'statusUpdate', 'artifactUpdate'] as const;

type Json = Record<string, unknown>;

/**
 * Checks that a parsed body is a v1.0 `StreamResponse` in ProtoJSON, as far as the receiver relies on it: exactly one
 * member set (`null` is unset), an object, with the ids that route it to a task and the state that may end the task.
 * The rest is handed to the app as sent. Returns what is wrong instead when it is not. Depth is measured first
 * (without recursion), so nothing walks a body nested deeper than any agent would send.
 */
export function readPushedEvent(body: unknown): PushedEvent | { problem: string } {
  if (!isObject(body)) return { problem: 'it must be a JSON object' };
  const tooDeep = tooDeepAt(body, MAX_PUSH_BODY_DEPTH);
  if (tooDeep !== undefined)
    return { problem: `it nests more than ${MAX_PUSH_BODY_DEPTH} levels (at ${tooDeep || 'the top'})` };
  const set = MEMBERS.filter((name) => body[name] !== undefined && body[name] !== null);
  if (set.length !== 1) {
    if (set.length === 0 && typeof body.kind === 'string')
      return { problem: `a v0.3 payload (kind "${body.kind}") is not A2A v1.0` };
    return {
      problem: `exactly one of ${MEMBERS.join(', ')} must be set${set.length > 1 ? `, not ${set.join(' and ')}` : ''}`,
    };
  }
  const member = set[0];
  const value = body[member];
  if (!isObject(value)) return { problem: `${member} must be an object` };
  switch (member) {
    case 'task': {
      const id = requiredId(value, 'id');
      const state = stateOf(value);
      if (id === undefined) return { problem: 'task.id must be a non-empty string' };
      if (state === undefined) return { problem: 'task.status.state must be a string' };
      return { event: body as StreamResponse, taskId: id, terminal: TERMINAL_STATES.has(state) };
    }
    case 'statusUpdate': {
      const taskId = requiredId(value, 'taskId');
      const state = stateOf(value);
      if (taskId === undefined) return { problem: 'statusUpdate.taskId must be a non-empty string' };
      if (state === undefined) return { problem: 'statusUpdate.status.state must be a string' };
      return { event: body as StreamResponse, taskId, terminal: TERMINAL_STATES.has(state) };
    }
    case 'artifactUpdate': {
      const taskId = requiredId(value, 'taskId');
      if (taskId === undefined) return { problem: 'artifactUpdate.taskId must be a non-empty string' };
      if (!isObject(value.artifact)) return { problem: 'artifactUpdate.artifact must be an object' };
      return { event: body as StreamResponse, taskId, terminal: false };
    }
    case 'message': {
      if (requiredId(value, 'messageId') === undefined)
        return { problem: 'message.messageId must be a non-empty string' };
      const taskId = value.taskId;
      if (taskId !== undefined && taskId !== null && typeof taskId !== 'string')
        return { problem: 'message.taskId must be a string' };
      return { event: body as StreamResponse, taskId: taskId || undefined, terminal: false };
    }
  }
}

function requiredId(value: Json, field: string): string | undefined {
  const id = value[field];
  return typeof id === 'string' && id !== '' ? id : undefined;
}

function stateOf(value: Json): TaskState | undefined {
  const status = value.status;
  if (!isObject(status)) return undefined;
  return typeof status.state === 'string' ? (status.state as TaskState) : undefined;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
