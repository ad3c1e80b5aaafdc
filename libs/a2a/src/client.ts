/**
 * `nestjs-a2a/client`: the client side of A2A v1.0, in a Nest app (`A2aClientModule`, the injectable `A2aClient`) or
 * without one (`new A2aAgentClient({ cardUrl })`, for scripts).
 *
 * ```ts
 * @Module({ imports: [A2aClientModule.register({ agents: { flights: { cardUrl: 'https://flights.example' } } })] })
 * class AppModule {}
 *
 * const answer = await a2aClient.agent('flights').send('Paris to Tokyo, Friday'); // a Task, or a Message
 * if ('status' in answer) a2aClient.agent('flights').subscribe(answer.id).subscribe((event) => …); // until terminal
 * ```
 *
 * JSON-RPC and HTTP+JSON need nothing beyond the core's peers. A gRPC interface loads `@grpc/grpc-js`,
 * `@grpc/proto-loader` and `protobufjs` (optional peers) with a dynamic `import()` the first time it is used; this
 * entry point imports none of them.
 */
export { A2aClientModule } from './client/a2a-client.module.js';
export { A2aClient } from './client/a2a-client.service.js';
export {
  A2aAgentClient,
  type A2aCallOptions,
  type A2aOutgoingMessage,
  type A2aSendOptions,
  type A2aSubscribeOptions,
} from './client/a2a-agent.client.js';
export type {
  A2aAgentDefaults,
  A2aAgentOptions,
  A2aApiKeyPlacement,
  A2aCardVerificationOptions,
  A2aClientCredentials,
  A2aClientLimits,
  A2aClientModuleExtras,
  A2aClientModuleOptions,
  A2aClientNetworkOptions,
  A2aClientRetryOptions,
  A2aClientTlsOptions,
  CredentialValue,
} from './client/a2a-client.options.js';
export { DEFAULT_PREFERRED_TRANSPORTS } from './client/a2a-client.options.js';
export {
  A2aAddressRefusedError,
  A2aCardError,
  A2aCardVerificationError,
  A2aClientError,
  A2aClientOptionsError,
  A2aCredentialsRefusedError,
  A2aProtocolError,
  A2aTransportError,
  type A2aClientErrorKind,
  type A2aProtocolErrorWire,
} from './client/a2a-client.errors.js';
export { A2aClientMessages } from './client/a2a-client.messages.js';
export { AGENT_CARD_WELL_KNOWN_PATH, type ResolvedAgentCard } from './client/agent-card.resolver.js';
export { eventIdOf } from './client/stream-event.id.js';
export type {
  AgentCard,
  AgentInterface,
  AgentSkill,
  Artifact,
  JsonObject,
  JsonValue,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  Part,
  ProtocolBinding,
  SendMessageConfiguration,
  StreamResponse,
  Task,
  TaskArtifactUpdateEvent,
  TaskPushNotificationConfig,
  TaskState,
  TaskStatusUpdateEvent,
} from './protocol/a2a.types.js';
/** Narrow `send()`'s `Task | Message`: `if (isTask(answer)) agent.subscribe(answer.id)`. */
export { isMessage, isTask } from './task/task-or-message.js';
export type { A2aErrorKind } from './errors/a2a-error-codes.js';
export type { A2aAuditSink, A2aAuditRecord, A2aAuditAgent } from './audit/a2a-audit.sink.js';
export type { A2aStreamOptions } from './client/a2a-call.options.js';
export type { A2aClientErrorContext } from './client/a2a-client.errors.js';
export type { ErrorDetail } from './errors/a2a.error.js';
