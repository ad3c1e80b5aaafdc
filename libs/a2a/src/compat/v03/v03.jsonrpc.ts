import { A2A_EXTENSIONS_HEADER } from '../../a2a.constants.js';
import type { HttpProtocolContext } from '../../bindings/http/http-protocol-context.js';
import type { HttpRequest } from '../../bindings/http/http-request.js';
import type { A2aOperationName } from '../../context/a2a-invocation.js';
import { isInterrupted, isTerminal } from '../../task/task-states.js';
import { A2aError } from '../../errors/a2a.error.js';
import type {
  AgentCard,
  ListTaskPushNotificationConfigsResponse,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  TaskState,
} from '../../protocol/a2a.types.js';
import { v03AgentCard } from './v03.card.js';
import {
  v03Message,
  v03StreamEvent,
  v03Task,
  v03TaskPushConfig,
  v1MessageOf,
  v1PushConfigOf,
} from './v03.translate.js';
import { V03_EXTENSIONS_HEADER, V03_PROTOCOL_VERSION, type V03StreamEvent } from './v03.types.js';

/** v0.3's JSON-RPC methods, and the v1.0 operation each is served as. */
const V03_METHODS: ReadonlyMap<string, A2aOperationName> = new Map<string, A2aOperationName>([
  ['message/send', 'SendMessage'],
  ['message/stream', 'SendStreamingMessage'],
  ['tasks/get', 'GetTask'],
  ['tasks/cancel', 'CancelTask'],
  ['tasks/resubscribe', 'SubscribeToTask'],
  ['tasks/pushNotificationConfig/set', 'CreateTaskPushNotificationConfig'],
  ['tasks/pushNotificationConfig/get', 'GetTaskPushNotificationConfig'],
  ['tasks/pushNotificationConfig/list', 'ListTaskPushNotificationConfigs'],
  ['tasks/pushNotificationConfig/delete', 'DeleteTaskPushNotificationConfig'],
  ['agent/getAuthenticatedExtendedCard', 'GetExtendedAgentCard'],
]);

const V03_METHOD_NAMES = [...V03_METHODS.keys()].join(', ');

/** v0.3 has no paging of push configs: its list asks v1.0 for the largest page (the most a task may have by default). */
const V03_LIST_PAGE_SIZE = 100;

/** A JSON-RPC call served in v0.3: its method, the v1.0 operation behind it, what it says of the protocol. */
export interface V03JsonRpcCall {
  readonly method: string;
  readonly operation: A2aOperationName;
  readonly protocol: HttpProtocolContext;
}

/**
 * Whether a JSON-RPC call is served in v0.3 (option `compat.v03`), decided by its method and its `A2A-Version`
 * (header, else the query parameter):
 * - a v0.3 method (`message/send`, …) with the version absent, empty (v0.3 clients send none; spec §3.6.2) or `0.3` (patch
 *   ignored): served in v0.3;
 * - `A2A-Version: 0.3` with any other method: MethodNotFound, naming v0.3's methods (v0.3 has no `SendMessage`);
 * - anything else: undefined, served as without the option (v1.0's methods without a version are v1.0's: no v0.3
 *   client sends them; a v0.3 method with `A2A-Version: 1.0` is no v1.0 method).
 *
 * @throws A2aError `MethodNotFound`.
 */
export function v03JsonRpcCall(method: string, req: HttpRequest): V03JsonRpcCall | undefined {
  const version = requestedVersion(req);
  const operation = V03_METHODS.get(method);
  if (version !== undefined && version !== V03_PROTOCOL_VERSION) return undefined;
  if (operation === undefined) {
    if (version === undefined) return undefined;
    throw new A2aError(
      'MethodNotFound',
      `Method "${method}" is not an A2A 0.3 method; with A2A-Version 0.3 send one of ${V03_METHOD_NAMES} (or A2A-Version 1.0 for the 1.0 methods)`,
    );
  }
  return { method, operation, protocol: { version: V03_PROTOCOL_VERSION, extensions: v03Extensions(req) } };
}

/**
 * The v1.0 request a v0.3 call's params make, for the operation's own validator: messages and push configs
 * translated, v0.3's parameter names mapped (`id` of the push-config methods is the task's, and
 * `pushNotificationConfigId` the config's). A push config without an id gets the task's, as v0.3 servers gave it, on
 * `set` and `get` alike.
 *
 * @throws A2aError `InvalidParams` for what only v0.3 can get wrong (see v03.translate.ts).
 */
export function v1RequestOf(call: V03JsonRpcCall, params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const copy = (key: string, as = key) => {
    if (params[key] !== undefined && params[key] !== null) out[as] = params[key];
  };
  switch (call.operation) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return v1SendRequestOf(params);
    case 'GetTask':
      copy('id');
      copy('historyLength');
      return out;
    case 'CancelTask':
      copy('id');
      copy('metadata');
      return out;
    case 'SubscribeToTask':
      copy('id');
      return out;
    case 'CreateTaskPushNotificationConfig': {
      const config = params.pushNotificationConfig as Record<string, unknown> | undefined;
      return v1PushConfigOf(config, 'pushNotificationConfig', {
        taskId: params.taskId,
        id: config?.id || params.taskId,
      }) as Record<string, unknown>;
    }
    case 'GetTaskPushNotificationConfig':
      copy('id', 'taskId');
      copy(params.pushNotificationConfigId ? 'pushNotificationConfigId' : 'id', 'id');
      return out;
    case 'DeleteTaskPushNotificationConfig':
      copy('id', 'taskId');
      copy('pushNotificationConfigId', 'id');
      return out;
    case 'ListTaskPushNotificationConfigs':
      copy('id', 'taskId');
      out.pageSize = V03_LIST_PAGE_SIZE;
      return out;
    default:
      // GetExtendedAgentCard: no params.
      return out;
  }
}

/** `message/send` and `message/stream`: `{ message, configuration: { blocking, pushNotificationConfig, … }, metadata }`. */
function v1SendRequestOf(params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (params.message !== undefined) out.message = v1MessageOf(params.message);
  const configuration = params.configuration;
  if (configuration !== undefined && configuration !== null) {
    if (typeof configuration !== 'object' || Array.isArray(configuration)) {
      out.configuration = configuration;
    } else {
      const given = configuration as Record<string, unknown>;
      const v1: Record<string, unknown> = {};
      if (given.acceptedOutputModes != null) v1.acceptedOutputModes = given.acceptedOutputModes;
      if (given.historyLength != null) v1.historyLength = given.historyLength;
      // v0.3's `blocking: false` is v1.0's `returnImmediately: true`; blocking is the default of both.
      if (given.blocking === false) v1.returnImmediately = true;
      else if (given.blocking != null && given.blocking !== true)
        throw A2aError.invalidParams([{ field: 'configuration.blocking', description: 'Must be a boolean' }]);
      if (given.pushNotificationConfig != null) {
        const push = given.pushNotificationConfig as Record<string, unknown>;
        const taskId = (params.message as { taskId?: unknown } | undefined)?.taskId;
        // A follow-up's config without an id gets the task's; a new task's gets a fresh one (its id is not known yet).
        v1.taskPushNotificationConfig = v1PushConfigOf(push, 'configuration.pushNotificationConfig', {
          id: push.id || taskId,
        });
      }
      out.configuration = v1;
    }
  }
  if (params.metadata !== undefined && params.metadata !== null) out.metadata = params.metadata;
  return out;
}

/** A unary operation's v1.0 result in v0.3's shape. */
export function v03Result(call: V03JsonRpcCall, result: unknown): unknown {
  switch (call.operation) {
    case 'SendMessage': {
      const response = result as SendMessageResponse;
      return 'task' in response ? v03Task(response.task) : v03Message(response.message);
    }
    case 'GetTask':
    case 'CancelTask':
      return v03Task(result as Task);
    case 'CreateTaskPushNotificationConfig':
    case 'GetTaskPushNotificationConfig':
      return v03TaskPushConfig(result as TaskPushNotificationConfig);
    case 'ListTaskPushNotificationConfigs':
      return (result as ListTaskPushNotificationConfigsResponse).configs.map(v03TaskPushConfig);
    case 'DeleteTaskPushNotificationConfig':
      return null;
    case 'GetExtendedAgentCard':
      return v03AgentCard(result as AgentCard);
    default:
      return result;
  }
}

/**
 * A stream's event in v0.3's shape. `final: true` marks the status update at whose state this server ends the stream:
 * `message/stream` ends at a terminal or interrupted state (INPUT_REQUIRED, AUTH_REQUIRED), `tasks/resubscribe` at a
 * terminal one (v1.0's SendStreamingMessage and SubscribeToTask, docs/decisions.md).
 */
export function v03StreamEventOf(call: V03JsonRpcCall, event: StreamResponse): V03StreamEvent {
  return v03StreamEvent(event, call.operation === 'SubscribeToTask' ? isTerminal : endsSendStream);
}

function endsSendStream(state: TaskState): boolean {
  return isTerminal(state) || isInterrupted(state);
}

/** The echo of the activated extensions, under v0.3's header name and v1.0's; none when none was activated. */
export function v03ExtensionsHeaders(activated: readonly string[]): Record<string, string> | undefined {
  if (activated.length === 0) return undefined;
  const list = activated.join(',');
  return { [V03_EXTENSIONS_HEADER]: list, [A2A_EXTENSIONS_HEADER]: list };
}

/** The requested version as `Major.Minor`; undefined when absent or empty. */
function requestedVersion(req: HttpRequest): string | undefined {
  const header = req.headers['a2a-version'];
  let raw = Array.isArray(header) ? header[0] : header;
  if (raw === undefined) {
    const query = req.query?.['A2A-Version'];
    raw = typeof query === 'string' ? query : undefined;
  }
  const trimmed = raw?.trim();
  return trimmed ? trimmed.split('.').slice(0, 2).join('.') : undefined;
}

/** v0.3 clients send `X-A2A-Extensions`; v1.0's `A2A-Extensions` is read too. */
function v03Extensions(req: HttpRequest): string[] {
  const names = [req.headers['x-a2a-extensions'], req.headers['a2a-extensions']];
  return names
    .flatMap((header) => (header === undefined ? [] : Array.isArray(header) ? header : [header]))
    .flatMap((value) => value.split(','))
    .map((uri) => uri.trim())
    .filter(Boolean);
}
