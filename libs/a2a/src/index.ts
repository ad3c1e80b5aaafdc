/**
 * `nestjs-a2a`: what an agent's app uses. `A2aModule` and its options, `@AgentSkill` skills and their events, the
 * security schemes, card signing, push, audit and tracing, and the A2A v1.0 types. A task store or event bus of your
 * own is written against `nestjs-a2a/store`.
 */
export { A2aModule } from './a2a.module.js';
export type {
  A2aModuleOptions,
  A2aModuleExtras,
  A2aCardOptions,
  A2aLimits,
  A2aBindingMount,
} from './a2a-module.options.js';
export type { A2aBindingPlugin } from './bindings/binding-plugin.js';
export { SKILL_ID_METADATA_KEY, PROTOCOL_VERSION } from './a2a.constants.js';
export { A2aMessages } from './a2a.messages.js';

export { AgentSkill, type AgentSkillOptions } from './skills/agent-skill.decorator.js';
export { A2aSkillHandler, type SkillResult } from './skills/a2a-skill.handler.js';
export type { SkillContext } from './skills/skill-context.js';
export type { SkillEvent, StatusEvent, ArtifactEvent, ReplyEvent, AgentContent } from './skills/skill-event.js';
export {
  working,
  requireInput,
  requireAuth,
  complete,
  fail,
  reject,
  reply,
  artifact,
  type ArtifactOptions,
} from './skills/skill-events.helpers.js';
export type { SkillRouter } from './skills/skill.router.js';
export {
  SKILL_INPUT_SCHEMA_EXTENSION_URI,
  type SkillInputOptions,
  type InvalidInputMode,
  type ParseTextContext,
  type InvalidInputData,
} from './skills/skill-input.js';
export { A2aExtension, type A2aExtensionDeclaration } from './extensions/a2a-extension.decorator.js';
export { ConflictingExtensionError, InvalidExtensionError } from './errors/extension-bootstrap.errors.js';

export { AgentCardService } from './card/agent-card.service.js';
export {
  verifyAgentCard,
  type AgentCardVerification,
  type AgentCardVerificationOptions,
} from './card/signing/agent-card.verifier.js';
export {
  cardSigningKeyFromPem,
  cardSigningKeyFromFile,
  type PemCardSigningKeyOptions,
} from './card/signing/pem-card-signing.key.js';
export type { CardSigningKey, CardSigningKeyProvider, CardSigningAlgorithm } from './card/signing/card-signing.key.js';
export type { A2aCardSigningOptions, CardSignatureCoverage } from './card/signing/card-signing.options.js';
export type { CardPayloadCoverage } from './card/signing/card-payload.projection.js';
export { A2aError, type FieldViolation } from './errors/a2a.error.js';
export type { A2aErrorKind } from './errors/a2a-error-codes.js';
export {
  DuplicateSkillError,
  InvalidSkillClassError,
  SkillInputPackagesMissingError,
} from './errors/skill-bootstrap.errors.js';

export { ANONYMOUS_PRINCIPAL, type A2aCallContext, type A2aPrincipal, type TaskScope } from './context/call-context.js';
export {
  a2aInvocationOf,
  setA2aPrincipal,
  type A2aInvocation,
  type A2aOperationName,
} from './context/a2a-invocation.js';
export { userPropertyPrincipal, type A2aPrincipalResolver } from './context/principal.resolver.js';

export type {
  A2aAnonymousCallers,
  A2aSecurityOptions,
  A2aSecurityRequirement,
} from './security/a2a-security.options.js';
export type { A2aSecurityScheme, SchemeGrant, SchemeOutcome } from './security/a2a-security-scheme.js';
export type { CredentialSource } from './security/credential-source.js';
export { apiKeyScheme, type ApiKeySchemeOptions } from './security/schemes/api-key.scheme.js';
export { httpBasicScheme, type HttpBasicSchemeOptions } from './security/schemes/http-basic.scheme.js';
export { mtlsScheme, type MtlsSchemeOptions } from './security/schemes/mtls.scheme.js';
export { bearerJwtScheme, type BearerJwtSchemeOptions } from './security/schemes/bearer-jwt.scheme.js';
export { bearerTokenScheme, type BearerTokenSchemeOptions } from './security/schemes/bearer-token.scheme.js';
export { oauth2Scheme, type OAuth2SchemeOptions } from './security/schemes/oauth2.scheme.js';
export { openIdConnectScheme, type OpenIdConnectSchemeOptions } from './security/schemes/openid-connect.scheme.js';
export type {
  JwtVerificationOptions,
  JwtClaimsOptions,
  JwtKeySourceOptions,
} from './security/schemes/jwt-verification.js';
export type { TokenIntrospection, TokenIntrospector } from './security/schemes/token-introspection.js';
export { InvalidA2aOptionsError } from './errors/invalid-a2a-options.error.js';
export { InvalidSecurityConfigError } from './errors/security-config.error.js';
export { A2aTaskAuthorizations } from './security/task-authorizations.js';

export type { A2aPushOptions } from './push/a2a-push.options.js';
export type { PushDeliveryOptions } from './push/push-delivery.options.js';
export type { PushSecretsCipherOptions } from './push/push-secrets.cipher.js';
export { pushAllowList } from './push/push-address.policy.js';
export { A2aPushDispatcher } from './push/push.dispatcher.js';
export { InvalidPushOptionsError } from './push/push.errors.js';
export type { PushDeadLetter } from './store/task-push.store.js';

export { injectTraceContext } from './observability/otel-api.js';
export type { A2aObservabilityOptions } from './observability/a2a-observability.options.js';
export { A2A_TRACER_NAME, A2aAttributes, A2aMetricNames } from './observability/observability.names.js';
export {
  A2A_AUDIT_SINK,
  type A2aAuditSink,
  type A2aAuditRecord,
  type A2aAuditRecordBase,
  type A2aMessageAuditRecord,
  type A2aStateAuditRecord,
  type A2aArtifactAuditRecord,
  type A2aAuditDirection,
  type A2aAuditAgent,
  type A2aPartKind,
} from './audit/a2a-audit.sink.js';
export { A2aLoggerAuditSink } from './audit/logger-audit.sink.js';
export { auditDigestOf, type AuditDigest } from './audit/audit-digest.js';

export type { A2aCompatOptions } from './compat/compat.options.js';
export type { A2aInspectorOptions } from './inspector/inspector.options.js';

export type * from './protocol/a2a.types.js';
/** The card's skill entry (`AgentSkill` in the proto), whose name the `@AgentSkill` decorator takes here. */
export type { AgentSkill as AgentCardSkill } from './protocol/a2a.types.js';

/** `context.waitForAuthorization()` timed out, or was called again while a wait of the same task was pending. */
export { AuthorizationAlreadyAwaitedError, AuthorizationTimeoutError } from './security/task-authorization.errors.js';
/** A task store's or event bus's `healthCheck()` failed: closed, not connected, or too slow to answer. */
export { HealthCheckFailedError } from './health/health-check-failed.error.js';
/** `setA2aPrincipal` was given the ExecutionContext of a call that is not an A2A operation. */
export { NotAnA2aCallError } from './errors/not-an-a2a-call.error.js';
/** A typed-input peer (class-validator & co.) is installed at a version without an export this module needs. */
export { SkillInputPackagesIncompatibleError } from './errors/skill-bootstrap.errors.js';
export { CARD_SIGNING_ALGORITHMS } from './card/signing/card-signing.key.js';
export type { SkillContextFields } from './skills/skill-context.js';
export type { ErrorDetail } from './errors/a2a.error.js';
export type { A2aErrorCode } from './errors/a2a-error-codes.js';
export type { PushCircuitBreakerOptions } from './push/push-circuit.breaker.js';
/** `nestjs-a2a/grpc`, or a gRPC interface of the client, is used without some of its optional peers installed. */
export { GrpcPackagesMissingError } from './errors/grpc-packages-missing.error.js';
/** Narrow a SendMessage result (`Task | Message`): `if (isTask(answer)) client.subscribe(answer.id)`. */
export { isMessage, isTask } from './task/task-or-message.js';
/** Option `inspector` was given under `NODE_ENV=production` without `allowInProduction`. */
export { InspectorInProductionError } from './errors/inspector-in-production.error.js';
