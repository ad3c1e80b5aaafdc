import type { CanActivate, ExceptionFilter, NestInterceptor, Type } from '@nestjs/common';
import type { A2aBindingPlugin } from './bindings/binding-plugin.js';
import type { A2aInvocation } from './context/a2a-invocation.js';
import type { A2aPrincipalResolver } from './context/principal.resolver.js';
import type { EventBus } from './bus/event-bus.js';
import type { A2aExtensionDeclaration } from './extensions/a2a-extension.decorator.js';
import type { A2aCardSigningOptions } from './card/signing/card-signing.options.js';
import type { A2aSecurityOptions } from './security/a2a-security.options.js';
import type { AgentProvider } from './protocol/a2a.types.js';
import type { SkillRouter } from './skills/skill.router.js';
import type { A2aPushOptions } from './push/a2a-push.options.js';
import type { A2aObservabilityOptions } from './observability/a2a-observability.options.js';
import type { A2aAuditSink } from './audit/a2a-audit.sink.js';
import type { A2aCompatOptions } from './compat/compat.options.js';
import type { A2aInspectorOptions } from './inspector/inspector.options.js';
import type { TaskStore } from './store/task.store.js';

/** Card metadata that does not come from the skills. */
export interface A2aCardOptions {
  name: string;
  description: string;
  /** The agent's own version (not the protocol's). Default `'1.0.0'`. */
  version?: string;
  provider?: AgentProvider;
  documentationUrl?: string;
  iconUrl?: string;
  /** Default `['text/plain']`. */
  defaultInputModes?: string[];
  /** Default `['text/plain']`. */
  defaultOutputModes?: string[];
}

/** Module option `limits`: bounds on request sizes, stored tasks and per-caller work, each with a safe default. */
export interface A2aLimits {
  /** Largest request body accepted, in bytes (413 / JSON-RPC -32600 beyond). Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Deepest nesting of arrays and objects in a free-form value (`metadata`, a part's `data`), in requests on every
   * binding (InvalidParams beyond) and in what skills emit (the task fails). Default 32; at most 40, which keeps every
   * accepted value within protobuf's 100-level limit on gRPC.
   */
  maxJsonDepth?: number;
  /** Most parts in one message. Default 100. */
  maxPartsPerMessage?: number;
  /** Most messages kept in a task's history; older ones are dropped. Default 1000. */
  maxHistoryLength?: number;
  /**
   * Most tasks the default in-memory store keeps. Beyond it a task of the owner (tenant + owner) holding the most is
   * forgotten: its longest-terminal task, or, when none of its tasks is terminal, its oldest; so one caller's flood
   * evicts only its own tasks while it holds more than the others, and their open tasks (INPUT_REQUIRED…) go last.
   * A forgotten task's push configs and undelivered notifications go with it. Default 100,000; `Infinity` keeps every
   * task. Ignored with a custom `taskStore`.
   */
  maxTasks?: number;
  /**
   * Most tasks one owner (tenant + owner) may have in the default in-memory store. Beyond it that owner's own
   * longest-terminal task is forgotten for the new one; when none of its tasks has ended, the new task is refused
   * with TooManyRequests (HTTP 429, gRPC RESOURCE_EXHAUSTED, JSON-RPC -31429). Unauthenticated callers all share the
   * owner `anonymous`. Default 10,000; `Infinity` for no cap. Ignored with a custom `taskStore`.
   */
  maxTasksPerPrincipal?: number;
  /**
   * Most streams (SendStreamingMessage, SubscribeToTask, on every binding) one principal (tenant + owner) may have
   * open at once on this replica; beyond it a new stream is refused with TooManyRequests before it starts. A stream's
   * slot frees when it ends, fails, or its client goes away. Counted per replica: behind a load balancer, a caller may
   * hold this many on each. Default 100; `Infinity` for no cap.
   */
  maxStreamsPerPrincipal?: number;
  /**
   * The default in-memory store forgets a terminal task (and its push configs) this many ms after it became terminal.
   * Default: no expiry (`maxTasks` still bounds the store). Ignored with a custom `taskStore`.
   */
  terminalTaskTtlMs?: number;
}

/** Options that may come from a factory (`forRootAsync`). */
export interface A2aModuleOptions {
  card: A2aCardOptions;
  /** Public base URL of the app, written into the card (`http://localhost:3000` if unset). */
  baseUrl?: string;
  /** Where tasks live. Default: an in-memory store. */
  taskStore?: TaskStore;
  /** How task events reach every stream. Default: an in-process bus. */
  eventBus?: EventBus;
  limits?: A2aLimits;
  /** Seconds clients may cache the card (`Cache-Control: max-age`). Default 300. */
  cardMaxAgeSeconds?: number;
  /** Interval of SSE comment heartbeats, in ms. Default 15000. */
  sseHeartbeatMs?: number;
  /**
   * At shutdown (`app.close()`, or a signal with `enableShutdownHooks()`), how long running skills may take to finish,
   * in ms, while new messages are refused (503 / UNAVAILABLE). Tasks still running then are FAILED with a status
   * message saying so, except, on a store replicas share, a restartable skill's run with runs left, which another
   * replica runs again; streams still open end with an Unavailable error. Default 10000.
   */
  shutdownGraceMs?: number;
  /**
   * With a task store that replicas share (one with `leases`, e.g. PostgreSQL): how long a replica's lease on a
   * running skill lasts without renewal, in ms. It renews every third of that; once a lease has expired, another
   * replica fails the task ("execution lost"). Default 15000.
   */
  leaseTtlMs?: number;
  /** How often a replica renews its leases and looks for expired ones, in ms. Default a third of `leaseTtlMs`. */
  leaseRenewMs?: number;
  /**
   * Sign the card (spec §8.4: JWS over its RFC 8785 form) with these keys, at bootstrap and whenever it changes, and
   * serve their JWK Set (default `/.well-known/jwks.json`, named by each signature's `jku`). Default: unsigned.
   */
  cardSigning?: A2aCardSigningOptions;
  /**
   * Who may call: security schemes (API key, HTTP Basic, bearer JWT, OAuth2, OpenID Connect, mTLS), declared once,
   * published in the card and enforced on every binding; isolation of tasks per principal; the extended card. Without
   * schemes the agent is open to anyone (a warning at boot unless `allowAnonymous: true`).
   */
  security?: A2aSecurityOptions;
  /**
   * Push notifications (webhooks): the four config operations on every binding, SendMessage's inline config, and
   * delivery of every event of a task to its webhooks with retries, a durable outbox (in the task store) and dead
   * letters. Webhooks may only reach public addresses over https unless the allowlist says otherwise. Default: off
   * (the config operations answer PushNotificationNotSupported and the card says `pushNotifications: false`).
   */
  push?: A2aPushOptions;
  /**
   * Extensions of the whole agent (spec §4.6), published in the card's `capabilities.extensions` with those skills
   * declare by `@A2aExtension`. A call activates the ones it lists in `A2A-Extensions` (others are ignored) and its
   * answer echoes them; a `required` one the call did not activate is refused with ExtensionSupportRequired on every
   * operation. One URI declared twice must be declared identically (else ConflictingExtensionError at bootstrap).
   * Default none.
   */
  extensions?: A2aExtensionDeclaration[];
  /**
   * Who is calling when no guard has said so with `setA2aPrincipal`: from the HTTP request or the gRPC call object.
   * Default: Passport's `user` (its `id`, `sub`, `userId` or `username`), as principal `user:<id>`; anonymous when
   * there is none. The tasks of a principal this resolver returns are stored under `app:<id>` (see `A2aPrincipal.id`).
   */
  principalResolver?: A2aPrincipalResolver;
  /**
   * Called with every unexpected error (not a protocol error or an HttpException) that an A2A call or a skill run
   * ends with, after it is logged and answered (INTERNAL, or the task FAILED): the place to report to Sentry & co.
   * `invocation` is the call's, when there is one. A hook that throws is logged and ignored.
   */
  onUnexpectedError?: (error: unknown, invocation?: A2aInvocation) => void;
  /**
   * Tracing and metrics through `@opentelemetry/api`, an optional peer loaded with `import()` at bootstrap: a SERVER
   * span per operation, child of the caller's W3C `traceparent` (HTTP headers or gRPC metadata), a span per skill run,
   * active while the skill runs; tasks by state, time in state and open streams. Default: both on when the package is
   * installed (they record once an SDK registers its providers), off without it, at no cost.
   */
  observability?: A2aObservabilityOptions;
  /**
   * The audit trail of inbound delegations: a record per message received, state entered and artifact event (its
   * SHA-256), with the caller's principal and tenant, the card's version and signing key ids, the trace id. `true`:
   * one JSON line per record on Nest's logger (`A2aLoggerAuditSink`); a sink of your own (`A2aAuditSink`), which must
   * return quickly (its promise is not awaited, its errors are logged). Default off: no records, no hashing.
   */
  audit?: A2aAuditSink | boolean;
  /**
   * Serve the JSON-RPC and HTTP+JSON routes straight from node's request event whenever nothing of the app (global
   * guards, interceptors, pipes, pre-request hooks, middleware on those paths) would run on them; anything else still
   * goes through Express and Nest. Same answers (without Express's ETag), at a fraction of the CPU and memory. `false`
   * sends every request through Express and Nest. Default true.
   */
  directDispatch?: boolean;
  /**
   * Serve clients of earlier protocol versions as well: `{ v03: true }` serves A2A v0.3 clients on the JSON-RPC binding
   * (v0.3's method names and shapes, translated to v1.0 and back at the binding's edge) and gives a card request
   * without `A2A-Version` the card with v0.3's fields added (see `A2aCompatOptions`). Default: v1.0 only.
   */
  compat?: A2aCompatOptions;
  /**
   * Serve the inspector page, a browser view of the agent for development (see `A2aInspectorOptions`): `{}` serves it
   * at `/a2a/inspector`. Refused at startup under `NODE_ENV=production` unless `allowInProduction`. Default off.
   */
  inspector?: A2aInspectorOptions;
}

/** Where a binding is mounted, relative to the app's root (and global prefix). */
export interface A2aBindingMount {
  path: string;
}

/** Options that shape the module itself, so they must be known statically (`setExtras`). */
export interface A2aModuleExtras {
  /** JSON-RPC endpoint. Default `{ path: '/a2a/jsonrpc' }`; `false` to leave it off. */
  jsonRpc?: A2aBindingMount | false;
  /** HTTP+JSON routes. Default `{ path: '/a2a/rest' }`; `false` to leave them off. */
  rest?: A2aBindingMount | false;
  /**
   * Bindings from other entry points, e.g. `grpcBinding({ url: '0.0.0.0:50051' })` of `nestjs-a2a/grpc`, whose
   * packages only the apps that use them install. Default none.
   */
  bindings?: A2aBindingPlugin[];
  /**
   * Guards for every A2A operation on every binding (gRPC included), after the app's global ones; they see the decoded
   * request through `a2aInvocationOf(context)`. Classes are instantiated by Nest in A2aModule.
   */
  guards?: Array<Type<CanActivate> | CanActivate>;
  /** Interceptors for every A2A operation on every binding, inside the app's global ones. */
  interceptors?: Array<Type<NestInterceptor> | NestInterceptor>;
  /**
   * Exception filters for the errors of A2A operations that are not the protocol's own (A2aError, HttpException),
   * on every binding: the first whose `@Catch()` matches answers. Errors none takes are answered INTERNAL in the
   * binding's shape (and reach `onUnexpectedError`).
   */
  filters?: Array<Type<ExceptionFilter> | ExceptionFilter>;
  /** Chooses a skill for new messages that name none; an injectable class. */
  router?: Type<SkillRouter>;
  /** Register the module globally. Default false. */
  isGlobal?: boolean;
}
