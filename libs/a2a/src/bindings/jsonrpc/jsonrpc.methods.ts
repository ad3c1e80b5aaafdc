import type { Observable } from 'rxjs';
import type { A2aCallContext } from '../../context/call-context.js';
import type { A2aEngine } from '../../engine/a2a.engine.js';
import type { StreamResponse } from '../../protocol/a2a.types.js';
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
} from '../../protocol/request.validator.js';

/** One JSON-RPC method: validates its params, then runs the operation. Streaming methods answer with SSE. */
export type JsonRpcMethod =
  | { streaming: false; invoke(params: unknown, call: A2aCallContext): Promise<unknown> }
  | { streaming: true; invoke(params: unknown, call: A2aCallContext): Observable<StreamResponse> };

/** The A2A operations by JSON-RPC method name (CHECKLIST §1); v0.3's slash names (`message/send`) are not among them. */
export function jsonRpcMethods(engine: A2aEngine): ReadonlyMap<string, JsonRpcMethod> {
  const unary = (invoke: (params: unknown, call: A2aCallContext) => Promise<unknown>): JsonRpcMethod => ({ streaming: false, invoke });
  const streaming = (invoke: (params: unknown, call: A2aCallContext) => Observable<StreamResponse>): JsonRpcMethod => ({ streaming: true, invoke });
  // Operations the engine does not offer still validate their params first (R2): a malformed call is told so.
  const validatedThen = (validate: (params: unknown) => unknown, answer: () => never) =>
    unary(async (params) => {
      validate(params);
      answer();
    });
  return new Map([
    ['SendMessage', unary((params, call) => engine.sendMessage(validateSendMessageRequest(params), call))],
    ['SendStreamingMessage', streaming((params, call) => engine.sendStreamingMessage(validateSendMessageRequest(params), call))],
    ['GetTask', unary((params, call) => engine.getTask(validateGetTaskRequest(params), call))],
    ['ListTasks', unary((params, call) => engine.listTasks(validateListTasksRequest(params), call))],
    ['CancelTask', unary((params, call) => engine.cancelTask(validateCancelTaskRequest(params), call))],
    ['SubscribeToTask', streaming((params, call) => engine.subscribeToTask(validateSubscribeToTaskRequest(params), call))],
    ['CreateTaskPushNotificationConfig', validatedThen(validateTaskPushNotificationConfig, () => engine.pushNotificationsUnsupported())],
    ['GetTaskPushNotificationConfig', validatedThen(validateGetTaskPushNotificationConfigRequest, () => engine.pushNotificationsUnsupported())],
    ['ListTaskPushNotificationConfigs', validatedThen(validateListTaskPushNotificationConfigsRequest, () => engine.pushNotificationsUnsupported())],
    ['DeleteTaskPushNotificationConfig', validatedThen(validateDeleteTaskPushNotificationConfigRequest, () => engine.pushNotificationsUnsupported())],
    ['GetExtendedAgentCard', validatedThen(validateGetExtendedAgentCardRequest, () => engine.extendedAgentCardUnsupported())],
  ]);
}
