import { Inject, Injectable, UseGuards, UseInterceptors, type Type } from '@nestjs/common';
import type { Observable } from 'rxjs';
import type { A2aModuleExtras } from '../a2a-module.options.js';
import { A2A_INVOCATION, type A2aInvocation } from '../context/a2a-invocation.js';
import type { A2aCallContext } from '../context/call-context.js';
import { A2aAuthGuard } from '../security/a2a-auth.guard.js';
import { A2aEngine } from '../engine/a2a.engine.js';
import { skillGateOf, type SkillGate } from '../skills/skill-guards.js';
import { SkillRegistry } from '../skills/skill.registry.js';
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '../protocol/a2a.types.js';
import { CallContextFactory } from './call-context.factory.js';

/** What a streaming operation's handler returns: wrapped, so the pipeline hands the stream on rather than draining it. */
export interface StreamingResult {
  readonly events: Observable<StreamResponse>;
}

/** The host instance, whatever class `createA2aOperationsHost` made. */
export const A2A_OPERATIONS_HOST = Symbol('A2A_OPERATIONS_HOST');

/** What the HTTP bindings hand a handler first: the request the guards got, carrying the decoded invocation. */
type Carrier = { [A2A_INVOCATION]?: A2aInvocation };

/** One call as a handler runs it: the validated request, its context, and the gate of its skill's own guards. */
interface PreparedCall<R> {
  readonly request: R;
  readonly call: A2aCallContext;
  readonly gate: SkillGate | undefined;
}

/**
 * The A2A operations as the app's guards and interceptors see them on the HTTP bindings: `context.getHandler().name`
 * is the operation's method (`sendMessage`, `getTask`, …), and the arguments are the request and response. Each method
 * takes the invocation the binding left on the request (the decoded, validated request), makes the call context (the
 * principal a guard set, else the resolver's), and runs the engine.
 */
@Injectable()
export class A2aOperationHandlers {
  constructor(
    @Inject(A2aEngine) readonly engine: A2aEngine,
    @Inject(SkillRegistry) readonly skills: SkillRegistry,
    @Inject(CallContextFactory) readonly contexts: CallContextFactory,
  ) {}

  sendMessage(carrier: Carrier, response: unknown): Promise<SendMessageResponse> {
    const { request, call, gate } = this.prepare<SendMessageRequest>(carrier, response);
    return this.engine.sendMessage(request, call, gate);
  }

  sendStreamingMessage(carrier: Carrier, response: unknown): StreamingResult {
    const { request, call, gate } = this.prepare<SendMessageRequest>(carrier, response);
    return { events: this.engine.sendStreamingMessage(request, call, gate) };
  }

  getTask(carrier: Carrier, response: unknown): Promise<Task> {
    const { request, call } = this.prepare<GetTaskRequest>(carrier, response);
    return this.engine.getTask(request, call);
  }

  listTasks(carrier: Carrier, response: unknown): Promise<ListTasksResponse> {
    const { request, call } = this.prepare<ListTasksRequest>(carrier, response);
    return this.engine.listTasks(request, call);
  }

  cancelTask(carrier: Carrier, response: unknown): Promise<Task> {
    const { request, call } = this.prepare<CancelTaskRequest>(carrier, response);
    return this.engine.cancelTask(request, call);
  }

  subscribeToTask(carrier: Carrier, response: unknown): StreamingResult {
    const { request, call } = this.prepare<SubscribeToTaskRequest>(carrier, response);
    return { events: this.engine.subscribeToTask(request, call) };
  }

  createTaskPushNotificationConfig(carrier: Carrier, response: unknown): Promise<TaskPushNotificationConfig> {
    const { request, call } = this.prepare<TaskPushNotificationConfig>(carrier, response);
    return this.engine.createTaskPushNotificationConfig(request, call);
  }

  getTaskPushNotificationConfig(carrier: Carrier, response: unknown): Promise<TaskPushNotificationConfig> {
    const { request, call } = this.prepare<GetTaskPushNotificationConfigRequest>(carrier, response);
    return this.engine.getTaskPushNotificationConfig(request, call);
  }

  listTaskPushNotificationConfigs(
    carrier: Carrier,
    response: unknown,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    const { request, call } = this.prepare<ListTaskPushNotificationConfigsRequest>(carrier, response);
    return this.engine.listTaskPushNotificationConfigs(request, call);
  }

  deleteTaskPushNotificationConfig(carrier: Carrier, response: unknown): Promise<Record<string, never>> {
    const { request, call } = this.prepare<DeleteTaskPushNotificationConfigRequest>(carrier, response);
    return this.engine.deleteTaskPushNotificationConfig(request, call);
  }

  getExtendedAgentCard(carrier: Carrier, response: unknown): Promise<AgentCard> {
    const { call } = this.prepare<object>(carrier, response);
    return this.engine.getExtendedAgentCard(call);
  }

  /** Every A2A call that reaches a handler carries its invocation: the binding put it there before the guards ran. */
  private prepare<R>(carrier: Carrier, response: unknown): PreparedCall<R> {
    const invocation = carrier[A2A_INVOCATION]!;
    const call = this.contexts.of(invocation, carrier);
    const gate = skillGateOf(this.skills, { type: 'http', args: [carrier, response] });
    return { request: invocation.request as R, call, gate };
  }
}

/**
 * The class the app's guards and interceptors see as `context.getClass()`: {@link A2aAuthGuard} (option `security`)
 * runs first, then the module's `guards`. One class per module definition, so the module's own `guards` and
 * `interceptors` apply to it alone.
 */
export function createA2aOperationsHost({
  guards = [],
  interceptors = [],
}: Pick<A2aModuleExtras, 'guards' | 'interceptors'>): Type {
  @Injectable()
  class A2aOperations extends A2aOperationHandlers {}
  // The module's own guard first: the app's guards see the principal it found.
  UseGuards(A2aAuthGuard, ...guards)(A2aOperations);
  if (interceptors.length > 0) UseInterceptors(...interceptors)(A2aOperations);
  return A2aOperations;
}
