import type { ExecutionContext } from '@nestjs/common';
import type { ProtocolBinding } from '../protocol/a2a.types.js';
import { NotAnA2aCallError } from '../errors/not-an-a2a-call.error.js';
import type { A2aPrincipal } from './call-context.js';

/** The A2A operations (spec §5.3), by their JSON-RPC method and gRPC rpc name. */
export type A2aOperationName =
  | 'SendMessage'
  | 'SendStreamingMessage'
  | 'GetTask'
  | 'ListTasks'
  | 'CancelTask'
  | 'SubscribeToTask'
  | 'CreateTaskPushNotificationConfig'
  | 'GetTaskPushNotificationConfig'
  | 'ListTaskPushNotificationConfigs'
  | 'DeleteTaskPushNotificationConfig'
  | 'GetExtendedAgentCard';

/**
 * One A2A call as the app's guards, interceptors and filters see it, the same on JSON-RPC, HTTP+JSON and gRPC: read
 * it with {@link a2aInvocationOf}. By the time they run the request has been decoded and validated, so what it says
 * can be trusted to have the protocol's shape.
 */
export interface A2aInvocation {
  readonly operation: A2aOperationName;
  readonly binding: ProtocolBinding;
  /** The request message, validated, in ProtoJSON (lowerCamelCase; e.g. `SendMessageRequest`). */
  readonly request: Readonly<Record<string, unknown>>;
  /** The task the call is about, when the request names one (`id`, `taskId`, or a follow-up's `message.taskId`). */
  readonly taskId?: string;
  /** The skill a new message asks for by `metadata["nestjs-a2a/skillId"]`; routing may still choose it otherwise. */
  readonly skillId?: string;
  /** From the path (`/{tenant}/…`) or the request's `tenant`; `''` when none. */
  readonly tenant: string;
  /** The negotiated protocol version (`Major.Minor`). */
  readonly version: string;
  /** The extensions the call activated: the URIs of its `A2A-Extensions` that the agent declares; others are ignored (spec §4.6.3). */
  readonly extensions: readonly string[];
  /** HTTP headers, or gRPC metadata (text entries), by lowercase name. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Who is calling, once a guard has said so with {@link setA2aPrincipal}. */
  principal?: A2aPrincipal;
}

/** Where a binding keeps the invocation: on the HTTP request, or on the gRPC request message (the handler's data). */
export const A2A_INVOCATION = Symbol('nestjs-a2a.invocation');

type Carrier = { [A2A_INVOCATION]?: A2aInvocation };

/**
 * The A2A call behind `context`, for a guard, interceptor or filter; undefined for anything else (another route of
 * the app, the agent card).
 *
 * ```ts
 * canActivate(context: ExecutionContext) {
 *   const call = a2aInvocationOf(context);
 *   if (call?.operation === 'CancelTask') …
 * }
 * ```
 */
export function a2aInvocationOf(context: ExecutionContext): A2aInvocation | undefined {
  return carrierOf(context)?.[A2A_INVOCATION];
}

/**
 * Tells the bindings who is calling: the task owner for the store and the `principal` of the skill's context. Call it
 * from a guard that has authenticated the caller. The skill sees the principal as given; its tasks are stored under
 * `app:<id>`, so an app's ids never meet a security scheme's, a Passport user's or the anonymous owner (passing the
 * module's own principal object on unchanged keeps its owner). Without it, the module's `principalResolver` decides
 * (by default from Passport's `req.user`), else the caller is anonymous.
 *
 * @throws NotAnA2aCallError when `context` is not an A2A call.
 */
export function setA2aPrincipal(context: ExecutionContext, principal: A2aPrincipal): void {
  const invocation = a2aInvocationOf(context);
  if (!invocation) throw new NotAnA2aCallError('setA2aPrincipal: this ExecutionContext is not an A2A call');
  invocation.principal = principal;
}

/** The object the binding put the invocation on: the HTTP request, or the gRPC request message. */
function carrierOf(context: ExecutionContext): Carrier | undefined {
  const type = context.getType<string>();
  const carrier: unknown =
    type === 'http'
      ? context.switchToHttp().getRequest()
      : type === 'rpc'
        ? context.switchToRpc().getData()
        : undefined;
  return typeof carrier === 'object' && carrier !== null ? (carrier as Carrier) : undefined;
}
