import { A2aError } from '../../errors/a2a.error.js';
import type {
  Artifact,
  JsonObject,
  JsonValue,
  Message,
  Part,
  Role,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  TaskState,
  TaskStatus,
} from '../../protocol/a2a.types.js';
import {
  V03_DATA_PART_COMPAT_FLAG,
  type V03Artifact,
  type V03FilePart,
  type V03Message,
  type V03Part,
  type V03PushNotificationConfig,
  type V03Role,
  type V03StreamEvent,
  type V03Task,
  type V03TaskPushNotificationConfig,
  type V03TaskState,
  type V03TaskStatus,
} from './v03.types.js';

/*
 * Both directions between v0.3's JSON-RPC shapes and v1.0's ProtoJSON.
 *
 * Inbound (v0.3 → v1.0) reads untrusted input: it translates what v0.3 defines (discriminators, names, the nesting of
 * files and push configs) and copies everything else as it is, for the v1.0 validators to judge afterwards, as they
 * judge v1.0 requests (required fields, base64, URLs, depth). Free-form values (`metadata`, `data`) are never walked
 * here, so the walk's depth is the schema's, whatever the input's (the validators check the depth, with a loop).
 * What only v0.3 can get wrong (an unknown `kind`, a role, a file with neither bytes nor uri) is refused here, with
 * v0.3's field names.
 *
 * Outbound (v1.0 → v0.3) reads what the engine produced, already valid; it builds new objects and never changes its
 * input (a stream's events are shared by every stream of the task).
 */

const STATE_TO_V03: Readonly<Record<TaskState, V03TaskState>> = {
  TASK_STATE_UNSPECIFIED: 'unknown',
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_CANCELED: 'canceled',
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_REJECTED: 'rejected',
  TASK_STATE_AUTH_REQUIRED: 'auth-required',
};

const STATE_FROM_V03: ReadonlyMap<string, TaskState> = new Map(
  Object.entries(STATE_TO_V03).map(([v1, v03]) => [v03, v1 as TaskState]),
);

/** v1.0 `TASK_STATE_WORKING` → v0.3 `working` (`TASK_STATE_UNSPECIFIED` → `unknown`). */
export function v03TaskState(state: TaskState): V03TaskState {
  return STATE_TO_V03[state] ?? 'unknown';
}

/** v0.3 `working` → v1.0 `TASK_STATE_WORKING`; undefined for a name v0.3 does not have. */
export function v1TaskState(state: string): TaskState | undefined {
  return STATE_FROM_V03.get(state);
}

/** v1.0 `ROLE_USER` → v0.3 `user`; anything else is the agent's. */
export function v03Role(role: Role): V03Role {
  return role === 'ROLE_USER' ? 'user' : 'agent';
}

/** v0.3 `user` → v1.0 `ROLE_USER`, `agent` → `ROLE_AGENT`; undefined for anything else. */
export function v1Role(role: unknown): Role | undefined {
  return role === 'user' ? 'ROLE_USER' : role === 'agent' ? 'ROLE_AGENT' : undefined;
}

// ---- inbound: v0.3 → v1.0 ----

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refuse(field: string, description: string): never {
  throw A2aError.invalidParams([{ field, description }]);
}

/** Copies `source[key]` to `target[as]` when it is there (null counts as absent, as in ProtoJSON). */
function copy(target: Json, source: Json, key: string, as = key): void {
  const value = source[key];
  if (value !== undefined && value !== null) target[as] = value;
}

/**
 * A v0.3 part (`{ kind: 'text', text }`, `{ kind: 'file', file: { bytes | uri, mimeType, name } }`,
 * `{ kind: 'data', data }`) as a v1.0 one (`{ text }`, `{ raw, mediaType, filename }` / `{ url, … }`, `{ data }`).
 * A part without `kind` is passed on as it is (a `{ text }` part reads the same in both versions).
 */
export function v1PartOf(part: unknown, field = 'part'): unknown {
  if (!isObject(part) || part.kind === undefined) return part;
  const out: Json = {};
  switch (part.kind) {
    case 'text':
      copy(out, part, 'text');
      break;
    case 'file': {
      const file = part.file;
      if (!isObject(file)) refuse(`${field}.file`, 'A file part needs `file`, an object with `bytes` or `uri`');
      const hasBytes = file.bytes !== undefined && file.bytes !== null;
      const hasUri = file.uri !== undefined && file.uri !== null;
      if (hasBytes === hasUri) refuse(`${field}.file`, 'A file has exactly one of `bytes` (base64) or `uri`');
      if (hasBytes) copy(out, file, 'bytes', 'raw');
      else copy(out, file, 'uri', 'url');
      copy(out, file, 'name', 'filename');
      copy(out, file, 'mimeType', 'mediaType');
      break;
    }
    case 'data': {
      const metadata = part.metadata;
      if (isObject(metadata) && metadata[V03_DATA_PART_COMPAT_FLAG] === true) {
        // A value that is not an object, wrapped for v0.3 (see V03_DATA_PART_COMPAT_FLAG): unwrapped again.
        out.data = isObject(part.data) && 'value' in part.data ? part.data.value : part.data;
        const { [V03_DATA_PART_COMPAT_FLAG]: _flag, ...rest } = metadata;
        if (Object.keys(rest).length > 0) out.metadata = rest;
        return out;
      }
      copy(out, part, 'data');
      break;
    }
    default:
      refuse(`${field}.kind`, 'Must be "text", "file" or "data"');
  }
  copy(out, part, 'metadata');
  return out;
}

/** A v0.3 message (`kind: 'message'`, role `user`/`agent`, v0.3 parts) as a v1.0 one. */
export function v1MessageOf(message: unknown, field = 'message'): unknown {
  if (!isObject(message)) return message;
  if (message.kind !== undefined && message.kind !== 'message') refuse(`${field}.kind`, 'Must be "message"');
  const out: Json = {};
  copy(out, message, 'messageId');
  copy(out, message, 'contextId');
  copy(out, message, 'taskId');
  if (message.role !== undefined) {
    const role = v1Role(message.role);
    if (role === undefined) refuse(`${field}.role`, 'Must be "user" (or "agent")');
    out.role = role;
  }
  if (Array.isArray(message.parts)) out.parts = message.parts.map((part, i) => v1PartOf(part, `${field}.parts[${i}]`));
  else copy(out, message, 'parts');
  copy(out, message, 'metadata');
  copy(out, message, 'extensions');
  copy(out, message, 'referenceTaskIds');
  return out;
}

/**
 * v0.3's push config (`{ id, url, token, authentication: { schemes[], credentials } }`) as v1.0's, whose
 * authentication has one `scheme`: the first of `schemes` (v1.0 cannot say more; a config without schemes has no
 * authentication). `taskId` and `id` as given.
 */
export function v1PushConfigOf(config: unknown, field: string, ids: { taskId?: unknown; id?: unknown }): unknown {
  if (!isObject(config)) refuse(field, 'Required: the push notification config, an object with `url`');
  const out: Json = {};
  if (ids.taskId !== undefined && ids.taskId !== null) out.taskId = ids.taskId;
  if (ids.id !== undefined && ids.id !== null && ids.id !== '') out.id = ids.id;
  copy(out, config, 'url');
  copy(out, config, 'token');
  const auth = config.authentication;
  if (isObject(auth)) {
    const schemes = auth.schemes;
    if (schemes !== undefined && !Array.isArray(schemes))
      refuse(`${field}.authentication.schemes`, 'Must be an array of scheme names');
    if (Array.isArray(schemes) && schemes.length > 0) {
      const authentication: Json = { scheme: schemes[0] };
      copy(authentication, auth, 'credentials');
      out.authentication = authentication;
    }
  } else if (auth !== undefined && auth !== null) {
    refuse(`${field}.authentication`, 'Must be an object');
  }
  return out;
}

// ---- outbound: v1.0 → v0.3 ----

/** A v1.0 part as v0.3's; a `data` value that is not an object is wrapped (see V03_DATA_PART_COMPAT_FLAG). */
export function v03Part(part: Part): V03Part {
  const metadata = part.metadata;
  if (part.text !== undefined) return withMetadata({ kind: 'text', text: part.text }, metadata);
  if (part.raw !== undefined || part.url !== undefined) {
    const file: V03FilePart['file'] = part.raw !== undefined ? { bytes: part.raw } : { uri: part.url! };
    if (part.mediaType) file.mimeType = part.mediaType;
    if (part.filename) file.name = part.filename;
    return withMetadata<V03Part>({ kind: 'file', file }, metadata);
  }
  const data = part.data as JsonValue;
  if (isObject(data)) return withMetadata({ kind: 'data', data: data as JsonObject }, metadata);
  return { kind: 'data', data: { value: data ?? null }, metadata: { ...metadata, [V03_DATA_PART_COMPAT_FLAG]: true } };
}

function withMetadata<T extends V03Part>(part: T, metadata: JsonObject | undefined): T {
  if (metadata !== undefined) part.metadata = metadata;
  return part;
}

export function v03Message(message: Message): V03Message {
  const out: V03Message = {
    kind: 'message',
    messageId: message.messageId,
    role: v03Role(message.role),
    parts: message.parts.map(v03Part),
  };
  if (message.contextId) out.contextId = message.contextId;
  if (message.taskId) out.taskId = message.taskId;
  if (message.metadata !== undefined) out.metadata = message.metadata;
  if (message.extensions?.length) out.extensions = message.extensions;
  if (message.referenceTaskIds?.length) out.referenceTaskIds = message.referenceTaskIds;
  return out;
}

export function v03TaskStatus(status: TaskStatus): V03TaskStatus {
  const out: V03TaskStatus = { state: v03TaskState(status.state) };
  if (status.message) out.message = v03Message(status.message);
  if (status.timestamp) out.timestamp = status.timestamp;
  return out;
}

export function v03Artifact(artifact: Artifact): V03Artifact {
  const out: V03Artifact = { artifactId: artifact.artifactId, parts: artifact.parts.map(v03Part) };
  if (artifact.name) out.name = artifact.name;
  if (artifact.description) out.description = artifact.description;
  if (artifact.metadata !== undefined) out.metadata = artifact.metadata;
  if (artifact.extensions?.length) out.extensions = artifact.extensions;
  return out;
}

export function v03Task(task: Task): V03Task {
  const out: V03Task = { kind: 'task', id: task.id, contextId: task.contextId, status: v03TaskStatus(task.status) };
  if (task.artifacts) out.artifacts = task.artifacts.map(v03Artifact);
  if (task.history) out.history = task.history.map(v03Message);
  if (task.metadata !== undefined) out.metadata = task.metadata;
  return out;
}

/**
 * One event of a v1.0 stream as v0.3's. v0.3 marks a stream's last status update `final: true`; v1.0 has no such
 * field (the stream's end says it), so it is derived from the state: `final` says whether the event's state is one
 * at which this stream ends (`isFinal`).
 */
export function v03StreamEvent(event: StreamResponse, isFinal: (state: TaskState) => boolean): V03StreamEvent {
  if ('task' in event) return v03Task(event.task);
  if ('message' in event) return v03Message(event.message);
  if ('statusUpdate' in event) {
    const update = event.statusUpdate;
    const out: V03StreamEvent = {
      kind: 'status-update',
      taskId: update.taskId,
      contextId: update.contextId,
      status: v03TaskStatus(update.status),
      final: isFinal(update.status.state),
    };
    if (update.metadata !== undefined) out.metadata = update.metadata;
    return out;
  }
  const update = event.artifactUpdate;
  const out: V03StreamEvent = {
    kind: 'artifact-update',
    taskId: update.taskId,
    contextId: update.contextId,
    artifact: v03Artifact(update.artifact),
  };
  if (update.append !== undefined) out.append = update.append;
  if (update.lastChunk !== undefined) out.lastChunk = update.lastChunk;
  if (update.metadata !== undefined) out.metadata = update.metadata;
  return out;
}

/** v1.0's flat TaskPushNotificationConfig as v0.3's `{ taskId, pushNotificationConfig }`. */
export function v03TaskPushConfig(config: TaskPushNotificationConfig): V03TaskPushNotificationConfig {
  const inner: V03PushNotificationConfig = { url: config.url };
  if (config.id) inner.id = config.id;
  if (config.token) inner.token = config.token;
  if (config.authentication) {
    inner.authentication = { schemes: config.authentication.scheme ? [config.authentication.scheme] : [] };
    if (config.authentication.credentials) inner.authentication.credentials = config.authentication.credentials;
  }
  return { taskId: config.taskId ?? '', pushNotificationConfig: inner };
}
