import type { Observable } from 'rxjs';
import { SKILL_ID_METADATA_KEY } from '../a2a.constants.js';
import type { A2aOperationName } from '../context/a2a-invocation.js';
import type { A2aCallContext } from '../context/call-context.js';
import type { A2aEngine } from '../engine/a2a.engine.js';
import type { SendMessageRequest, StreamResponse } from '../protocol/a2a.types.js';
import type { SkillGate } from '../skills/skill-guards.js';
import {
  validateCancelTaskRequest,
  validateDeleteTaskPushNotificationConfigRequest,
  validateGetExtendedAgentCardRequest,
  validateGetTaskPushNotificationConfigRequest,
  validateGetTaskRequest,
  validateListTaskPushNotificationConfigsRequest,
  validateListTasksRequest,
  validateSendMessageRequest,
  validateSubscribeToTaskRequest,
  validateTaskPushNotificationConfig,
  type ValidationLimits,
} from '../protocol/request.validator.js';

interface OperationBase {
  /** The JSON-RPC method and gRPC rpc name (spec §5.3). */
  name: A2aOperationName;
  /** The handler's name in guards and interceptors (`context.getHandler().name`): `sendMessage`, … */
  handlerName: string;
  /** Full name of the request's proto message. */
  requestType: string;
  /** Checks the decoded ProtoJSON request and returns its clean, typed copy (throws InvalidParams). */
  validate(request: unknown, limits: ValidationLimits): object;
}

/** An operation answering once, with a message of `responseType` (a full proto name). */
export interface UnaryOperation extends OperationBase {
  streaming: false;
  responseType: string;
  /** Runs a request `validate` returned; `gate` checks the skill a message is routed to (its own guards). */
  run(engine: A2aEngine, request: object, call: A2aCallContext, gate?: SkillGate): Promise<object>;
}

/** An operation answering with a stream of `StreamResponse`s. */
export interface StreamingOperation extends OperationBase {
  streaming: true;
  run(engine: A2aEngine, request: object, call: A2aCallContext, gate?: SkillGate): Observable<StreamResponse>;
}

export type A2aOperation = UnaryOperation | StreamingOperation;

/**
 * Every A2A operation as the bindings dispatch it: one table, so the bindings cannot disagree on which operations exist
 * or how their requests are checked (spec §5.1). v0.3's slash names (`message/send`) are not among them. Operations
 * disabled by options (push without option `push`) still validate their request first (spec §5.7): a malformed call is
 * told so.
 */
export const A2A_OPERATIONS: readonly A2aOperation[] = [
  {
    name: 'SendMessage',
    handlerName: 'sendMessage',
    requestType: 'lf.a2a.v1.SendMessageRequest',
    responseType: 'lf.a2a.v1.SendMessageResponse',
    streaming: false,
    validate: validateSendMessageRequest,
    run: (engine, request, call, gate) => engine.sendMessage(request as SendMessageRequest, call, gate),
  },
  {
    name: 'SendStreamingMessage',
    handlerName: 'sendStreamingMessage',
    requestType: 'lf.a2a.v1.SendMessageRequest',
    streaming: true,
    validate: validateSendMessageRequest,
    run: (engine, request, call, gate) => engine.sendStreamingMessage(request as SendMessageRequest, call, gate),
  },
  {
    name: 'GetTask',
    handlerName: 'getTask',
    requestType: 'lf.a2a.v1.GetTaskRequest',
    responseType: 'lf.a2a.v1.Task',
    streaming: false,
    validate: validateGetTaskRequest,
    run: (engine, request, call) => engine.getTask(request as ReturnType<typeof validateGetTaskRequest>, call),
  },
  {
    name: 'ListTasks',
    handlerName: 'listTasks',
    requestType: 'lf.a2a.v1.ListTasksRequest',
    responseType: 'lf.a2a.v1.ListTasksResponse',
    streaming: false,
    validate: validateListTasksRequest,
    run: (engine, request, call) => engine.listTasks(request as ReturnType<typeof validateListTasksRequest>, call),
  },
  {
    name: 'CancelTask',
    handlerName: 'cancelTask',
    requestType: 'lf.a2a.v1.CancelTaskRequest',
    responseType: 'lf.a2a.v1.Task',
    streaming: false,
    validate: validateCancelTaskRequest,
    run: (engine, request, call) => engine.cancelTask(request as ReturnType<typeof validateCancelTaskRequest>, call),
  },
  {
    name: 'SubscribeToTask',
    handlerName: 'subscribeToTask',
    requestType: 'lf.a2a.v1.SubscribeToTaskRequest',
    streaming: true,
    validate: validateSubscribeToTaskRequest,
    run: (engine, request, call) =>
      engine.subscribeToTask(request as ReturnType<typeof validateSubscribeToTaskRequest>, call),
  },
  {
    name: 'CreateTaskPushNotificationConfig',
    handlerName: 'createTaskPushNotificationConfig',
    requestType: 'lf.a2a.v1.TaskPushNotificationConfig',
    responseType: 'lf.a2a.v1.TaskPushNotificationConfig',
    streaming: false,
    validate: validateTaskPushNotificationConfig,
    run: (engine, request, call) =>
      engine.createTaskPushNotificationConfig(request as ReturnType<typeof validateTaskPushNotificationConfig>, call),
  },
  {
    name: 'GetTaskPushNotificationConfig',
    handlerName: 'getTaskPushNotificationConfig',
    requestType: 'lf.a2a.v1.GetTaskPushNotificationConfigRequest',
    responseType: 'lf.a2a.v1.TaskPushNotificationConfig',
    streaming: false,
    validate: validateGetTaskPushNotificationConfigRequest,
    run: (engine, request, call) =>
      engine.getTaskPushNotificationConfig(
        request as ReturnType<typeof validateGetTaskPushNotificationConfigRequest>,
        call,
      ),
  },
  {
    name: 'ListTaskPushNotificationConfigs',
    handlerName: 'listTaskPushNotificationConfigs',
    requestType: 'lf.a2a.v1.ListTaskPushNotificationConfigsRequest',
    responseType: 'lf.a2a.v1.ListTaskPushNotificationConfigsResponse',
    streaming: false,
    validate: validateListTaskPushNotificationConfigsRequest,
    run: (engine, request, call) =>
      engine.listTaskPushNotificationConfigs(
        request as ReturnType<typeof validateListTaskPushNotificationConfigsRequest>,
        call,
      ),
  },
  {
    name: 'DeleteTaskPushNotificationConfig',
    handlerName: 'deleteTaskPushNotificationConfig',
    requestType: 'lf.a2a.v1.DeleteTaskPushNotificationConfigRequest',
    responseType: 'google.protobuf.Empty',
    streaming: false,
    validate: validateDeleteTaskPushNotificationConfigRequest,
    run: (engine, request, call) =>
      engine.deleteTaskPushNotificationConfig(
        request as ReturnType<typeof validateDeleteTaskPushNotificationConfigRequest>,
        call,
      ),
  },
  {
    name: 'GetExtendedAgentCard',
    handlerName: 'getExtendedAgentCard',
    requestType: 'lf.a2a.v1.GetExtendedAgentCardRequest',
    responseType: 'lf.a2a.v1.AgentCard',
    streaming: false,
    validate: validateGetExtendedAgentCardRequest,
    run: (engine, _request, call) => engine.getExtendedAgentCard(call),
  },
];

export const OPERATIONS_BY_NAME: ReadonlyMap<string, A2aOperation> = new Map(
  A2A_OPERATIONS.map((operation) => [operation.name, operation]),
);

/** The task a validated request is about, when it names one (push-config requests: `taskId`; their `id` is the config's). */
export function taskIdOf(request: Record<string, unknown>): string | undefined {
  if (typeof request.taskId === 'string') return request.taskId;
  if (typeof request.id === 'string') return request.id;
  const message = request.message as { taskId?: unknown } | undefined;
  return typeof message?.taskId === 'string' ? message.taskId : undefined;
}

/** The skill a validated SendMessage request names by metadata (the message's first, as the engine routes). */
export function skillIdOf(request: Record<string, unknown>): string | undefined {
  const message = request.message as { metadata?: Record<string, unknown> } | undefined;
  const hint =
    message?.metadata?.[SKILL_ID_METADATA_KEY] ??
    (request.metadata as Record<string, unknown> | undefined)?.[SKILL_ID_METADATA_KEY];
  return typeof hint === 'string' ? hint : undefined;
}
