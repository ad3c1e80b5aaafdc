import type {
  AgentCard,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  Message,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  TaskState,
} from '../protocol/a2a.types.js';

/**
 * Shape checks of what agents answer: enough that the client's callers can rely on the fields their types promise (ids,
 * states, the one member of a oneof), not a full validation; unknown fields pass (spec §5.7). Each returns the value or
 * undefined.
 */

const STREAM_MEMBERS = ['task', 'message', 'statusUpdate', 'artifactUpdate'] as const;
const TERMINAL: ReadonlySet<TaskState> = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);
const INTERRUPTED: ReadonlySet<TaskState> = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);

/** A Task: a string `id` and a `status` with a `state`. */
export function asTask(value: unknown): Task | undefined {
  if (
    !isObject(value) ||
    typeof value.id !== 'string' ||
    !isObject(value.status) ||
    typeof value.status.state !== 'string'
  )
    return undefined;
  return value as unknown as Task;
}

/** A Message: `messageId`, `role` and a `parts` list. */
export function asMessage(value: unknown): Message | undefined {
  if (
    !isObject(value) ||
    typeof value.messageId !== 'string' ||
    typeof value.role !== 'string' ||
    !Array.isArray(value.parts)
  )
    return undefined;
  return value as unknown as Message;
}

/** SendMessageResponse: exactly one of `task` and `message`, returned unwrapped. */
export function asSendMessageResult(value: unknown): Task | Message | undefined {
  if (!isObject(value)) return undefined;
  const task = value.task === undefined || value.task === null ? undefined : asTask(value.task);
  const message = value.message === undefined || value.message === null ? undefined : asMessage(value.message);
  return (task === undefined) === (message === undefined) ? undefined : (task ?? message);
}

/** StreamResponse: exactly one of its four members, each an object (a task and a message checked further). */
export function asStreamResponse(value: unknown): StreamResponse | undefined {
  if (!isObject(value)) return undefined;
  const set = STREAM_MEMBERS.filter((member) => value[member] !== undefined && value[member] !== null);
  if (set.length !== 1) return undefined;
  const member = set[0];
  if (member === 'task' && !asTask(value.task)) return undefined;
  if (member === 'message' && !asMessage(value.message)) return undefined;
  if (!isObject(value[member])) return undefined;
  return value as unknown as StreamResponse;
}

/** ListTasksResponse; ProtoJSON may leave out an empty `tasks` and default scalars, so those are filled in. */
export function asListTasksResponse(value: unknown): ListTasksResponse | undefined {
  if (!isObject(value)) return undefined;
  const tasks = value.tasks ?? [];
  if (!Array.isArray(tasks) || !tasks.every((task) => asTask(task) !== undefined)) return undefined;
  return {
    ...(value as object),
    tasks: tasks as Task[],
    nextPageToken: typeof value.nextPageToken === 'string' ? value.nextPageToken : '',
    pageSize: typeof value.pageSize === 'number' ? value.pageSize : tasks.length,
    totalSize: typeof value.totalSize === 'number' ? value.totalSize : tasks.length,
  };
}

/** A TaskPushNotificationConfig: its REQUIRED `url`. */
export function asPushConfig(value: unknown): TaskPushNotificationConfig | undefined {
  return isObject(value) && typeof value.url === 'string'
    ? (value as unknown as TaskPushNotificationConfig)
    : undefined;
}

/** ListTaskPushNotificationConfigsResponse; an omitted empty `configs` is filled in. */
export function asListPushConfigsResponse(value: unknown): ListTaskPushNotificationConfigsResponse | undefined {
  if (!isObject(value)) return undefined;
  const configs = value.configs ?? [];
  if (!Array.isArray(configs) || !configs.every((config) => asPushConfig(config) !== undefined)) return undefined;
  return { ...(value as object), configs: configs as TaskPushNotificationConfig[] };
}

/** An object, to be checked as a card by the card resolver. */
export function asAgentCard(value: unknown): AgentCard | undefined {
  return isObject(value) ? (value as unknown as AgentCard) : undefined;
}

/** The task state an event reports, if it reports one. */
export function stateOf(response: StreamResponse): TaskState | undefined {
  if ('task' in response && response.task) return response.task.status.state;
  if ('statusUpdate' in response && response.statusUpdate) return response.statusUpdate.status?.state;
  return undefined;
}

/** COMPLETED, FAILED, CANCELED or REJECTED (spec §4.1.3). */
export function isTerminalState(state: TaskState | undefined): boolean {
  return state !== undefined && TERMINAL.has(state);
}

/** INPUT_REQUIRED or AUTH_REQUIRED (spec §4.1.3). */
export function isInterruptedState(state: TaskState | undefined): boolean {
  return state !== undefined && INTERRUPTED.has(state);
}

/** The task id an event belongs to. */
export function taskIdOf(response: StreamResponse): string | undefined {
  if ('task' in response && response.task) return response.task.id;
  if ('statusUpdate' in response && response.statusUpdate) return response.statusUpdate.taskId;
  if ('artifactUpdate' in response && response.artifactUpdate) return response.artifactUpdate.taskId;
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
