/**
 * The A2A v1.0 data model in its ProtoJSON form (camelCase fields, enum names as strings, Timestamps as ISO 8601 UTC).
 * Field names, optionality and oneofs follow `proto/a2a.proto` (package `lf.a2a.v1`) one to one; the validators in
 * `protocol/request.validator.ts` enforce the proto's REQUIRED markers on everything that comes in.
 */

/** Any JSON value: what `data` parts and metadata hold. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object: the type of every `metadata` field and of `data` parts that are objects. */
export type JsonObject = { [key: string]: JsonValue };

/** Where a task is in its lifecycle (proto `TaskState`): COMPLETED, FAILED, CANCELED and REJECTED are terminal. */
export type TaskState =
  | 'TASK_STATE_UNSPECIFIED'
  | 'TASK_STATE_SUBMITTED'
  | 'TASK_STATE_WORKING'
  | 'TASK_STATE_COMPLETED'
  | 'TASK_STATE_FAILED'
  | 'TASK_STATE_CANCELED'
  | 'TASK_STATE_INPUT_REQUIRED'
  | 'TASK_STATE_REJECTED'
  | 'TASK_STATE_AUTH_REQUIRED';

/** Who sent a message (proto `Role`): the client (`ROLE_USER`) or the agent (`ROLE_AGENT`). */
export type Role = 'ROLE_UNSPECIFIED' | 'ROLE_USER' | 'ROLE_AGENT';

/** Exactly one of `text`, `raw` (base64), `url` or `data` is set. */
export interface Part {
  text?: string;
  raw?: string;
  url?: string;
  data?: JsonValue;
  metadata?: JsonObject;
  filename?: string;
  mediaType?: string;
}

/** One turn of the conversation between a client and an agent (proto `Message`). */
export interface Message {
  messageId: string;
  contextId?: string;
  taskId?: string;
  role: Role;
  parts: Part[];
  metadata?: JsonObject;
  extensions?: string[];
  referenceTaskIds?: string[];
}

/** A task's current state, with the agent's message about it and when it was set (proto `TaskStatus`). */
export interface TaskStatus {
  state: TaskState;
  message?: Message;
  timestamp?: string;
}

/** An output of a task, such as a document or a result, made of parts (proto `Artifact`). */
export interface Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: Part[];
  metadata?: JsonObject;
  extensions?: string[];
}

/** The unit of work an agent does for a client: its status, artifacts and message history (proto `Task`). */
export interface Task {
  id: string;
  contextId: string;
  status: TaskStatus;
  artifacts?: Artifact[];
  history?: Message[];
  metadata?: JsonObject;
}

/** A stream or push event: the task's status changed (proto `TaskStatusUpdateEvent`). */
export interface TaskStatusUpdateEvent {
  taskId: string;
  contextId: string;
  status: TaskStatus;
  metadata?: JsonObject;
}

/** A stream or push event: an artifact was added, replaced or appended to (proto `TaskArtifactUpdateEvent`). */
export interface TaskArtifactUpdateEvent {
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: JsonObject;
}

/** One frame of a stream (and the body of a push notification): exactly one member is set. */
export type StreamResponse =
  | { task: Task }
  | { message: Message }
  | { statusUpdate: TaskStatusUpdateEvent }
  | { artifactUpdate: TaskArtifactUpdateEvent };

/** The answer to SendMessage: the task the message started or continued, or a direct message. */
export type SendMessageResponse = { task: Task } | { message: Message };

/** How the agent authenticates to a push webhook: an HTTP auth scheme and its credentials (proto `AuthenticationInfo`). */
export interface AuthenticationInfo {
  scheme: string;
  credentials?: string;
}

/** A webhook the agent POSTs a task's events to (proto `TaskPushNotificationConfig`). */
export interface TaskPushNotificationConfig {
  tenant?: string;
  id?: string;
  taskId?: string;
  url: string;
  token?: string;
  authentication?: AuthenticationInfo;
}

/** Options of a SendMessage call: output modes, history length, a push config, and whether to return at once. */
export interface SendMessageConfiguration {
  acceptedOutputModes?: string[];
  taskPushNotificationConfig?: TaskPushNotificationConfig;
  historyLength?: number;
  returnImmediately?: boolean;
}

/** The request of SendMessage and SendStreamingMessage (proto `SendMessageRequest`). */
export interface SendMessageRequest {
  tenant?: string;
  message: Message;
  configuration?: SendMessageConfiguration;
  metadata?: JsonObject;
}

/** The request of GetTask (proto `GetTaskRequest`). */
export interface GetTaskRequest {
  tenant?: string;
  id: string;
  historyLength?: number;
}

/** The request of ListTasks: filters and paging (proto `ListTasksRequest`). */
export interface ListTasksRequest {
  tenant?: string;
  contextId?: string;
  status?: TaskState;
  pageSize?: number;
  pageToken?: string;
  historyLength?: number;
  statusTimestampAfter?: string;
  includeArtifacts?: boolean;
}

/** One page of ListTasks (proto `ListTasksResponse`); `nextPageToken` is empty on the last page. */
export interface ListTasksResponse {
  tasks: Task[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

/** The request of CancelTask (proto `CancelTaskRequest`). */
export interface CancelTaskRequest {
  tenant?: string;
  id: string;
  metadata?: JsonObject;
}

/** The request of SubscribeToTask, which streams an existing task's events (proto `SubscribeToTaskRequest`). */
export interface SubscribeToTaskRequest {
  tenant?: string;
  id: string;
}

/** The request of GetTaskPushNotificationConfig (proto `GetTaskPushNotificationConfigRequest`). */
export interface GetTaskPushNotificationConfigRequest {
  tenant?: string;
  taskId: string;
  id: string;
}

/** The request of DeleteTaskPushNotificationConfig: the same fields as the Get request. */
export type DeleteTaskPushNotificationConfigRequest = GetTaskPushNotificationConfigRequest;

/** The request of ListTaskPushNotificationConfigs (proto `ListTaskPushNotificationConfigsRequest`). */
export interface ListTaskPushNotificationConfigsRequest {
  tenant?: string;
  taskId: string;
  pageSize?: number;
  pageToken?: string;
}

/** One page of a task's push configs (proto `ListTaskPushNotificationConfigsResponse`). */
export interface ListTaskPushNotificationConfigsResponse {
  configs: TaskPushNotificationConfig[];
  nextPageToken?: string;
}

/** The request of GetExtendedAgentCard, the card authenticated callers get (proto `GetExtendedAgentCardRequest`). */
export interface GetExtendedAgentCardRequest {
  tenant?: string;
}

// ---- Agent card ----

/** The binding of an agent interface: `JSONRPC`, `HTTP+JSON`, `GRPC`, or another binding's name. */
export type ProtocolBinding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC' | (string & {});

/** An address where the agent serves, with its binding and protocol version (proto `AgentInterface`). */
export interface AgentInterface {
  url: string;
  protocolBinding: ProtocolBinding;
  tenant?: string;
  protocolVersion: string;
}

/** The organization that runs the agent (proto `AgentProvider`). */
export interface AgentProvider {
  url: string;
  organization: string;
}

/** An extension the agent supports, as its card declares it (proto `AgentExtension`). */
export interface AgentExtension {
  uri: string;
  description?: string;
  required?: boolean;
  params?: JsonObject;
}

/** What the agent supports: streaming, push notifications, extensions, an extended card (proto `AgentCapabilities`). */
export interface AgentCapabilities {
  streaming?: boolean;
  pushNotifications?: boolean;
  extensions?: AgentExtension[];
  extendedAgentCard?: boolean;
}

/** Schemes a caller must satisfy together, each with its required scopes (proto `SecurityRequirement`). */
export interface SecurityRequirement {
  schemes: Record<string, { list?: string[] }>;
}

/** A skill as the agent card lists it (proto `AgentSkill`). */
export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
  securityRequirements?: SecurityRequirement[];
}

/** The OAuth 2.0 flows of an `oauth2SecurityScheme`, each with its endpoints and scopes (proto `OAuthFlows`). */
export interface OAuthFlows {
  authorizationCode?: {
    authorizationUrl: string;
    tokenUrl: string;
    refreshUrl?: string;
    scopes: Record<string, string>;
    pkceRequired?: boolean;
  };
  clientCredentials?: { tokenUrl: string; refreshUrl?: string; scopes: Record<string, string> };
  deviceCode?: {
    deviceAuthorizationUrl: string;
    tokenUrl: string;
    refreshUrl?: string;
    scopes: Record<string, string>;
  };
  implicit?: { authorizationUrl: string; refreshUrl?: string; scopes: Record<string, string> };
  password?: { tokenUrl: string; refreshUrl?: string; scopes: Record<string, string> };
}

/** Exactly one member is set. */
export interface SecurityScheme {
  apiKeySecurityScheme?: { description?: string; location: 'query' | 'header' | 'cookie'; name: string };
  httpAuthSecurityScheme?: { description?: string; scheme: string; bearerFormat?: string };
  oauth2SecurityScheme?: { description?: string; flows: OAuthFlows; oauth2MetadataUrl?: string };
  openIdConnectSecurityScheme?: { description?: string; openIdConnectUrl: string };
  mtlsSecurityScheme?: { description?: string };
}

/** A JWS signature of the agent card, in flattened JSON form (proto `AgentCardSignature`). */
export interface AgentCardSignature {
  protected: string;
  signature: string;
  header?: JsonObject;
}

/** The agent's self-description, served at `/.well-known/agent-card.json` (proto `AgentCard`). */
export interface AgentCard {
  name: string;
  description: string;
  supportedInterfaces: AgentInterface[];
  provider?: AgentProvider;
  version: string;
  documentationUrl?: string;
  capabilities: AgentCapabilities;
  securitySchemes?: Record<string, SecurityScheme>;
  securityRequirements?: SecurityRequirement[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
  signatures?: AgentCardSignature[];
  iconUrl?: string;
}
