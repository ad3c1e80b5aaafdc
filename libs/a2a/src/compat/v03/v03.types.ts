import type { JsonObject } from '../../protocol/a2a.types.js';

/**
 * The A2A v0.3 wire shapes of the JSON-RPC binding, as far as the compat layer reads and writes them (v0.3's JSON
 * schema: `kind` discriminators, lowercase states and roles, `final` on status updates, the push config nested in
 * `pushNotificationConfig`). Written from the v0.3 specification, not taken from an SDK.
 */

/** The version this layer serves, as `Major.Minor`. */
export const V03_PROTOCOL_VERSION = '0.3';

/** What a v0.3 card says in `protocolVersion` (v0.3 cards spelled it with the patch). */
export const V03_CARD_PROTOCOL_VERSION = '0.3.0';

/** v0.3's name of the extensions header (v1.0 dropped the `X-`). */
export const V03_EXTENSIONS_HEADER = 'X-A2A-Extensions';

/**
 * The flag with which v0.3 data parts carry a value that is not an object (v1.0 allows any JSON value in `data`,
 * v0.3 only objects): `data` is `{ value }` and the part's metadata has `data_part_compat: true`. The convention of
 * @a2a-js/sdk's compat layer, read and written here so that its v0.3 clients get their values back unchanged.
 */
export const V03_DATA_PART_COMPAT_FLAG = 'data_part_compat';

export type V03TaskState =
  | 'submitted'
  | 'working'
  | 'input-required'
  | 'completed'
  | 'canceled'
  | 'failed'
  | 'rejected'
  | 'auth-required'
  | 'unknown';

export type V03Role = 'user' | 'agent';

export interface V03TextPart {
  kind: 'text';
  text: string;
  metadata?: JsonObject;
}

export interface V03FileWithBytes {
  /** Base64. */
  bytes: string;
  mimeType?: string;
  name?: string;
}

export interface V03FileWithUri {
  uri: string;
  mimeType?: string;
  name?: string;
}

export interface V03FilePart {
  kind: 'file';
  file: V03FileWithBytes | V03FileWithUri;
  metadata?: JsonObject;
}

export interface V03DataPart {
  kind: 'data';
  data: JsonObject;
  metadata?: JsonObject;
}

export type V03Part = V03TextPart | V03FilePart | V03DataPart;

export interface V03Message {
  kind: 'message';
  messageId: string;
  role: V03Role;
  parts: V03Part[];
  contextId?: string;
  taskId?: string;
  metadata?: JsonObject;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface V03TaskStatus {
  state: V03TaskState;
  message?: V03Message;
  timestamp?: string;
}

export interface V03Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: V03Part[];
  metadata?: JsonObject;
  extensions?: string[];
}

export interface V03Task {
  kind: 'task';
  id: string;
  contextId: string;
  status: V03TaskStatus;
  artifacts?: V03Artifact[];
  history?: V03Message[];
  metadata?: JsonObject;
}

export interface V03TaskStatusUpdateEvent {
  kind: 'status-update';
  taskId: string;
  contextId: string;
  status: V03TaskStatus;
  /** True on the last event of the stream. */
  final: boolean;
  metadata?: JsonObject;
}

export interface V03TaskArtifactUpdateEvent {
  kind: 'artifact-update';
  taskId: string;
  contextId: string;
  artifact: V03Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: JsonObject;
}

/** What a v0.3 stream carries, each in its own JSON-RPC response. */
export type V03StreamEvent = V03Task | V03Message | V03TaskStatusUpdateEvent | V03TaskArtifactUpdateEvent;

export interface V03PushNotificationAuthenticationInfo {
  schemes: string[];
  credentials?: string;
}

export interface V03PushNotificationConfig {
  id?: string;
  url: string;
  token?: string;
  authentication?: V03PushNotificationAuthenticationInfo;
}

export interface V03TaskPushNotificationConfig {
  taskId: string;
  pushNotificationConfig: V03PushNotificationConfig;
}

/** A v0.3 card's entry of `additionalInterfaces`. */
export interface V03AgentInterface {
  url: string;
  transport: string;
}

/** The top-level fields a v0.3 card has and a v1.0 card has not. */
export interface V03CardFields {
  protocolVersion: string;
  url: string;
  preferredTransport: string;
  additionalInterfaces: V03AgentInterface[];
  supportsAuthenticatedExtendedCard?: boolean;
  /** v0.3's security requirements: scheme name → scopes. */
  security?: Array<Record<string, string[]>>;
}
