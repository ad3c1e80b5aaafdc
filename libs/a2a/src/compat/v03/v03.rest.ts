import type { ServerResponse } from 'node:http';
import { OPERATIONS_BY_NAME } from '../../bindings/a2a-operations.js';
import type { HttpRequest } from '../../bindings/http/http-request.js';
import { sendJson, setErrorHeaders } from '../../bindings/http/json-response.js';
import type { RestDialect, RestPathValues, RestRoute } from '../../bindings/rest/rest.routes.js';
import type { A2aOperationName } from '../../context/a2a-invocation.js';
import { A2aError } from '../../errors/a2a.error.js';
import { toA2aError } from '../../errors/to-a2a-error.js';
import {
  v03ExtensionsHeaders,
  v03JsonRpcCall,
  v03Result,
  v03StreamEventOf,
  v1RequestOf,
  type V03JsonRpcCall,
} from './v03.jsonrpc.js';
import { V03_PROTOCOL_VERSION } from './v03.types.js';

/*
 * v0.3's HTTP+JSON binding (option `compat.v03`), as @a2a-js/sdk 1.3's v0.3 REST client and server speak it: routes
 * below `/v1/`, bodies in the ProtoJSON of v0.3's proto (`a2a.v1` of v0.3: a message's parts are `content`, roles and
 * states are enum names, `TASK_STATE_CANCELLED`, parts are `{ text }`, `{ file: { fileWithUri | fileWithBytes,
 * mimeType } }`, `{ data: { data } }`, push configs `{ name: 'tasks/{id}/pushNotificationConfigs/{configId}',
 * pushNotificationConfig }`), errors `{ code, message, data }` with the JSON-RPC codes. Each request is read as the
 * v0.3 JSON-RPC call it is (ProtoJSON → v0.3 JSON), then translated by v03.jsonrpc.ts like one; each answer the
 * other way round.
 */

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface V03RestRouteSpec {
  method: RestRoute['method'];
  path: string;
  method03: string;
  input: 'body' | 'none';
  /** v0.3 JSON-RPC params from the ProtoJSON body, the path's values and the query. */
  params(body: unknown, values: RestPathValues, query: HttpRequest['query']): Json;
  /** The v0.3 JSON-RPC result as v0.3's ProtoJSON, and the status the SDK's v0.3 server answers with. */
  answer(result: unknown): { status: number; body: unknown };
}

const ok = (body: unknown) => ({ status: 200, body });

const SPECS: V03RestRouteSpec[] = [
  {
    method: 'POST',
    path: 'v1/message\\:send',
    method03: 'message/send',
    input: 'body',
    params: sendParamsOf,
    answer: (r) => ok(protoSendResult(r)),
  },
  {
    method: 'POST',
    path: 'v1/message\\:stream',
    method03: 'message/stream',
    input: 'body',
    params: sendParamsOf,
    answer: ok,
  },
  {
    method: 'GET',
    path: 'v1/tasks/:id\\:subscribe',
    method03: 'tasks/resubscribe',
    input: 'none',
    params: (_b, v) => ({ id: v.id }),
    answer: ok,
  },
  {
    method: 'POST',
    path: 'v1/tasks/:id\\:subscribe',
    method03: 'tasks/resubscribe',
    input: 'body',
    params: (_b, v) => ({ id: v.id }),
    answer: ok,
  },
  {
    method: 'POST',
    path: 'v1/tasks/:id\\:cancel',
    method03: 'tasks/cancel',
    input: 'body',
    params: (_b, v) => ({ id: v.id }),
    answer: (r) => ok(protoTask(r as Json)),
  },
  {
    method: 'GET',
    path: 'v1/tasks/:id',
    method03: 'tasks/get',
    input: 'none',
    params: (_b, v, q) => {
      const history = q?.historyLength;
      return {
        id: v.id,
        ...(typeof history === 'string' && history !== ''
          ? { historyLength: /^\d+$/.test(history) ? Number(history) : history }
          : {}),
      };
    },
    answer: (r) => ok(protoTask(r as Json)),
  },
  {
    method: 'POST',
    path: 'v1/tasks/:id/pushNotificationConfigs',
    method03: 'tasks/pushNotificationConfig/set',
    input: 'body',
    params: (b, v) => {
      const body = isObject(b) ? b : {};
      const inner = isObject(body.pushNotificationConfig)
        ? { ...body.pushNotificationConfig }
        : body.pushNotificationConfig;
      // The config id is the inner `id`, else the last segment of `name` (`tasks/{id}/pushNotificationConfigs/{configId}`).
      const named =
        typeof body.name === 'string'
          ? /^tasks\/[^/]+\/pushNotificationConfigs\/([^/]+)$/.exec(body.name)?.[1]
          : undefined;
      if (isObject(inner) && !inner.id && named) inner.id = named;
      return { taskId: v.id, pushNotificationConfig: inner };
    },
    answer: (r) => ({ status: 201, body: protoPushConfig(r as Json) }),
  },
  {
    method: 'GET',
    path: 'v1/tasks/:id/pushNotificationConfigs',
    method03: 'tasks/pushNotificationConfig/list',
    input: 'none',
    params: (_b, v) => ({ id: v.id }),
    answer: (r) => ok({ configs: (r as Json[]).map(protoPushConfig) }),
  },
  {
    method: 'GET',
    path: 'v1/tasks/:id/pushNotificationConfigs/:configId',
    method03: 'tasks/pushNotificationConfig/get',
    input: 'none',
    params: (_b, v) => ({ id: v.id, pushNotificationConfigId: v.configId }),
    answer: (r) => ok(protoPushConfig(r as Json)),
  },
  {
    method: 'DELETE',
    path: 'v1/tasks/:id/pushNotificationConfigs/:configId',
    method03: 'tasks/pushNotificationConfig/delete',
    input: 'none',
    params: (_b, v) => ({ id: v.id, pushNotificationConfigId: v.configId }),
    answer: () => ({ status: 204, body: undefined }),
  },
];

/**
 * v0.3's HTTP+JSON routes, relative to the binding's prefix, for A2aHttpRoutes to register ahead of the `/{tenant}/…`
 * ones when the option is on. `GET /v1/card` (v0.3's extended card, in v0.3's proto shape) is not among them.
 */
export const V03_REST_OPERATION_ROUTES: readonly (RestRoute & { dialect: RestDialect })[] = SPECS.map((spec) => {
  const operation = operationOf(spec.method03);
  const call: V03JsonRpcCall = {
    method: spec.method03,
    operation,
    protocol: { version: V03_PROTOCOL_VERSION, extensions: [] },
  };
  const dialect: RestDialect = {
    // v0.3 clients send no A2A-Version (or 0.3); any other is refused on these paths.
    protocol: (req) => {
      const found = v03JsonRpcCall(spec.method03, req);
      if (found) return found.protocol;
      throw new A2aError(
        'VersionNotSupported',
        `v0.3's /v1/ paths (option compat.v03) are served in A2A 0.3 only; send A2A-Version 0.3 or none`,
        {
          supported: V03_PROTOCOL_VERSION,
        },
      );
    },
    request: (input, values, query) => {
      if (input !== undefined && input !== null && !isObject(input))
        throw A2aError.invalidParams([{ field: 'body', description: 'Must be a JSON object' }]);
      return v1RequestOf(call, spec.params(input ?? {}, values, query));
    },
    result: (result) => spec.answer(v03Result(call, result)),
    event: (event) => protoStreamEvent(v03StreamEventOf(call, event) as unknown as Json),
    extensionsHeaders: v03ExtensionsHeaders,
    sendError: sendV03RestError,
    errorFrame: (error) => `event: error\ndata: ${JSON.stringify(v03RestErrorBody(toA2aError(error)))}`,
  };
  return {
    method: spec.method,
    path: spec.path,
    operation: OPERATIONS_BY_NAME.get(operation)!,
    input: spec.input,
    pathFields: {},
    dialect,
  };
});

function operationOf(method: string): A2aOperationName {
  return v03JsonRpcCall(method, { headers: { 'a2a-version': V03_PROTOCOL_VERSION } } as unknown as HttpRequest)!
    .operation;
}

// ---- errors ----

export function v03RestErrorBody(error: A2aError): { code: number; message: string; data?: unknown } {
  const details = error.details();
  return { code: error.code.jsonRpc, message: error.message, ...(details.length > 0 ? { data: details } : {}) };
}

/** An error as v0.3's HTTP+JSON answers it: the table's HTTP status, `{ code, message, data }` with the JSON-RPC code. */
export function sendV03RestError(res: ServerResponse, exception: unknown): void {
  const error = toA2aError(exception);
  if (res.headersSent) {
    res.end();
    return;
  }
  setErrorHeaders(res, error.headers);
  sendJson(res, error.code.http, 'application/json', JSON.stringify(v03RestErrorBody(error)));
}

// ---- inbound: v0.3 ProtoJSON → v0.3 JSON-RPC params ----

const ROLE_OF_PROTO: Readonly<Record<string, string>> = {
  ROLE_USER: 'user',
  ROLE_AGENT: 'agent',
  1: 'user',
  2: 'agent',
};

function sendParamsOf(body: unknown): Json {
  if (!isObject(body)) return body as Json;
  const out: Json = {};
  const message = body.message ?? body.request;
  if (message !== undefined) out.message = v03MessageOfProto(message);
  if (isObject(body.configuration)) {
    // A proto3 bool: absent is false, so a configuration without `blocking` asks for a non-blocking send (as the
    // SDK's v0.3 server reads it); without a configuration the send blocks.
    const { pushNotification, blocking, ...rest } = body.configuration;
    out.configuration = {
      ...rest,
      blocking: blocking ?? false,
      ...(pushNotification !== undefined ? { pushNotificationConfig: pushNotification } : {}),
    };
  } else if (body.configuration !== undefined) {
    out.configuration = body.configuration;
  }
  if (body.metadata !== undefined) out.metadata = body.metadata;
  return out;
}

function v03MessageOfProto(message: unknown): unknown {
  if (!isObject(message)) return message;
  const { content, role, ...rest } = message;
  const out: Json = { ...rest, kind: 'message' };
  if (role !== undefined)
    out.role = typeof role === 'string' || typeof role === 'number' ? (ROLE_OF_PROTO[role] ?? role) : role;
  const parts = content ?? message.parts;
  out.parts = Array.isArray(parts) ? parts.map(v03PartOfProto) : parts;
  return out;
}

function v03PartOfProto(part: unknown): unknown {
  if (!isObject(part)) return part;
  const metadata = part.metadata !== undefined ? { metadata: part.metadata } : {};
  if (part.text !== undefined) return { kind: 'text', text: part.text, ...metadata };
  if (isObject(part.file)) {
    const file: Json = {};
    if (part.file.fileWithUri !== undefined) file.uri = part.file.fileWithUri;
    if (part.file.fileWithBytes !== undefined) file.bytes = part.file.fileWithBytes;
    if (part.file.mimeType) file.mimeType = part.file.mimeType;
    if (part.file.name) file.name = part.file.name;
    return { kind: 'file', file, ...metadata };
  }
  if (part.data !== undefined)
    return { kind: 'data', data: isObject(part.data) && 'data' in part.data ? part.data.data : part.data, ...metadata };
  // Neither: refused by the translation as a part without a kind v0.3 knows.
  return { ...part, kind: 'unknown' };
}

// ---- outbound: v0.3 JSON → v0.3 ProtoJSON ----

const PROTO_STATE: Readonly<Record<string, string>> = {
  unknown: 'TASK_STATE_UNSPECIFIED',
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
  canceled: 'TASK_STATE_CANCELLED',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  rejected: 'TASK_STATE_REJECTED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
};

function protoPart(part: Json): Json {
  const metadata = part.metadata !== undefined ? { metadata: part.metadata } : {};
  if (part.kind === 'text') return { text: part.text, ...metadata };
  if (part.kind === 'file') {
    const file = part.file as Json;
    const out: Json = file.uri !== undefined ? { fileWithUri: file.uri } : { fileWithBytes: file.bytes };
    if (file.mimeType) out.mimeType = file.mimeType;
    if (file.name) out.name = file.name;
    return { file: out, ...metadata };
  }
  return { data: { data: part.data }, ...metadata };
}

function protoMessage(message: Json): Json {
  const { kind: _kind, parts, role, ...rest } = message;
  return { ...rest, role: role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT', content: (parts as Json[]).map(protoPart) };
}

function protoStatus(status: Json): Json {
  const out: Json = { state: PROTO_STATE[status.state as string] ?? 'TASK_STATE_UNSPECIFIED' };
  if (status.message) out.message = protoMessage(status.message as Json);
  if (status.timestamp) out.timestamp = status.timestamp;
  return out;
}

function protoArtifact(artifact: Json): Json {
  return { ...artifact, parts: (artifact.parts as Json[]).map(protoPart) };
}

function protoTask(task: Json): Json {
  const { kind: _kind, status, artifacts, history, ...rest } = task;
  const out: Json = { ...rest, status: protoStatus(status as Json) };
  if (Array.isArray(artifacts)) out.artifacts = artifacts.map(protoArtifact);
  if (Array.isArray(history)) out.history = history.map(protoMessage);
  return out;
}

function protoSendResult(result: unknown): Json {
  const value = result as Json;
  return value.kind === 'task' ? { task: protoTask(value) } : { message: protoMessage(value) };
}

function protoStreamEvent(event: Json): Json {
  const { kind, ...rest } = event;
  switch (kind) {
    case 'task':
      return { task: protoTask(event) };
    case 'message':
      return { message: protoMessage(event) };
    case 'status-update':
      return { statusUpdate: { ...rest, status: protoStatus(rest.status as Json) } };
    default:
      return { artifactUpdate: { ...rest, artifact: protoArtifact(rest.artifact as Json) } };
  }
}

function protoPushConfig(config: Json): Json {
  const inner = config.pushNotificationConfig as Json;
  return {
    name: `tasks/${String(config.taskId)}/pushNotificationConfigs/${String(inner.id ?? '')}`,
    pushNotificationConfig: inner,
  };
}
