import type { Observable } from 'rxjs';
import type { A2aCallContext } from '../context/call-context.js';
import type { A2aEngine } from '../engine/a2a.engine.js';
import type { StreamResponse } from '../protocol/a2a.types.js';
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
  /** The JSON-RPC method and gRPC rpc name (CHECKLIST §1). */
  name: string;
  /** Full name of the request's proto message. */
  requestType: string;
}

/** An operation answering once, with a message of `responseType` (a full proto name). */
export interface UnaryOperation extends OperationBase {
  streaming: false;
  responseType: string;
  /** Validates the decoded ProtoJSON request, then runs it. */
  run(engine: A2aEngine, request: unknown, call: A2aCallContext): Promise<object>;
}

/** An operation answering with a stream of `StreamResponse`s. */
export interface StreamingOperation extends OperationBase {
  streaming: true;
  run(engine: A2aEngine, request: unknown, call: A2aCallContext): Observable<StreamResponse>;
}

export type A2aOperation = UnaryOperation | StreamingOperation;

// Operations the engine does not offer yet still validate their request first (R2): a malformed call is told so.
const validatedThen =
  (validate: (request: unknown, limits: ValidationLimits) => unknown, refuse: (engine: A2aEngine) => never) =>
  async (engine: A2aEngine, request: unknown): Promise<never> => {
    validate(request, engine.validationLimits);
    return refuse(engine);
  };
const pushUnsupported = (engine: A2aEngine) => engine.pushNotificationsUnsupported();

/**
 * Every A2A operation as the JSON-RPC and gRPC bindings dispatch it (both name operations the same way and take the
 * whole request message): one table, so the bindings cannot disagree on which operations exist or how their
 * requests are checked (R14). v0.3's slash names (`message/send`) are not among them.
 */
export const A2A_OPERATIONS: readonly A2aOperation[] = [
  {
    name: 'SendMessage',
    requestType: 'lf.a2a.v1.SendMessageRequest',
    responseType: 'lf.a2a.v1.SendMessageResponse',
    streaming: false,
    run: (engine, request, call) => engine.sendMessage(validateSendMessageRequest(request, engine.validationLimits), call),
  },
  {
    name: 'SendStreamingMessage',
    requestType: 'lf.a2a.v1.SendMessageRequest',
    streaming: true,
    run: (engine, request, call) => engine.sendStreamingMessage(validateSendMessageRequest(request, engine.validationLimits), call),
  },
  {
    name: 'GetTask',
    requestType: 'lf.a2a.v1.GetTaskRequest',
    responseType: 'lf.a2a.v1.Task',
    streaming: false,
    run: (engine, request, call) => engine.getTask(validateGetTaskRequest(request, engine.validationLimits), call),
  },
  {
    name: 'ListTasks',
    requestType: 'lf.a2a.v1.ListTasksRequest',
    responseType: 'lf.a2a.v1.ListTasksResponse',
    streaming: false,
    run: (engine, request, call) => engine.listTasks(validateListTasksRequest(request, engine.validationLimits), call),
  },
  {
    name: 'CancelTask',
    requestType: 'lf.a2a.v1.CancelTaskRequest',
    responseType: 'lf.a2a.v1.Task',
    streaming: false,
    run: (engine, request, call) => engine.cancelTask(validateCancelTaskRequest(request, engine.validationLimits), call),
  },
  {
    name: 'SubscribeToTask',
    requestType: 'lf.a2a.v1.SubscribeToTaskRequest',
    streaming: true,
    run: (engine, request, call) => engine.subscribeToTask(validateSubscribeToTaskRequest(request, engine.validationLimits), call),
  },
  {
    name: 'CreateTaskPushNotificationConfig',
    requestType: 'lf.a2a.v1.TaskPushNotificationConfig',
    responseType: 'lf.a2a.v1.TaskPushNotificationConfig',
    streaming: false,
    run: validatedThen(validateTaskPushNotificationConfig, pushUnsupported),
  },
  {
    name: 'GetTaskPushNotificationConfig',
    requestType: 'lf.a2a.v1.GetTaskPushNotificationConfigRequest',
    responseType: 'lf.a2a.v1.TaskPushNotificationConfig',
    streaming: false,
    run: validatedThen(validateGetTaskPushNotificationConfigRequest, pushUnsupported),
  },
  {
    name: 'ListTaskPushNotificationConfigs',
    requestType: 'lf.a2a.v1.ListTaskPushNotificationConfigsRequest',
    responseType: 'lf.a2a.v1.ListTaskPushNotificationConfigsResponse',
    streaming: false,
    run: validatedThen(validateListTaskPushNotificationConfigsRequest, pushUnsupported),
  },
  {
    name: 'DeleteTaskPushNotificationConfig',
    requestType: 'lf.a2a.v1.DeleteTaskPushNotificationConfigRequest',
    responseType: 'google.protobuf.Empty',
    streaming: false,
    run: validatedThen(validateDeleteTaskPushNotificationConfigRequest, pushUnsupported),
  },
  {
    name: 'GetExtendedAgentCard',
    requestType: 'lf.a2a.v1.GetExtendedAgentCardRequest',
    responseType: 'lf.a2a.v1.AgentCard',
    streaming: false,
    run: validatedThen(validateGetExtendedAgentCardRequest, (engine) => engine.extendedAgentCardUnsupported()),
  },
];
