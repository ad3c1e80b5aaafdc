import type { LookupAddress } from 'node:dns';
import type { JSONWebKeySet, JWK } from 'jose';
import type { A2aAuditSink } from '../audit/a2a-audit.sink.js';
import type { CardSigningAlgorithm } from '../card/signing/card-signing.key.js';
import type { ProtocolBinding } from '../protocol/a2a.types.js';

/** A value, or a function giving it (called for every call, so it may rotate); may be async. */
export type CredentialValue = string | (() => string | Promise<string>);

/** Where an API key travels: `location` and `name` as an `apiKeySecurityScheme` writes them. */
export interface A2aApiKeyPlacement {
  /** Default `header`. */
  readonly location?: 'header' | 'query' | 'cookie';
  /** The header, query parameter or cookie name. Default: the one the card's scheme names. */
  readonly name?: string;
}

/**
 * What the client can authenticate with. For each call the client picks the first alternative of the card's
 * `securityRequirements` it has every credential for, and sends those (spec §7, §7.4); without requirements it sends
 * nothing but the client certificate.
 *
 * Credentials (bearer, API key, Basic, OAuth2 tokens) go only to the origin the card was fetched from and to the
 * origins of `allowedOrigins`: a call whose interface lies elsewhere is refused before anything is sent
 * (`A2aCredentialsRefusedError`). The card never decides where the client's secrets go: not the OAuth2 token endpoint
 * (unless the card verified against pinned keys), not where an API key travels.
 */
export interface A2aClientCredentials {
  /** For an `httpAuthSecurityScheme` with scheme Bearer, and for `openIdConnectSecurityScheme` / `oauth2SecurityScheme` when no `oauth2` is given. */
  readonly bearer?: CredentialValue;
  /**
   * For `apiKeySecurityScheme`s: one key for every API-key scheme, or keys by scheme name. Sent where `apiKeyPlacement`
   * says (on gRPC, always as metadata).
   */
  readonly apiKey?: CredentialValue | Readonly<Record<string, CredentialValue>>;
  /**
   * Where API keys travel. Default: a header, named as the card's scheme names it. A card whose scheme asks for another
   * location (or another name, when one is given here) is not followed: the call is refused
   * (`A2aCredentialsRefusedError`), since a card that moves a key to the query would have it written into URLs, logs
   * and proxies.
   */
  readonly apiKeyPlacement?: A2aApiKeyPlacement;
  /** For an `httpAuthSecurityScheme` with scheme Basic. */
  readonly basic?: { readonly username: string; readonly password: string };
  /**
   * OAuth2 client credentials (RFC 6749 §4.4) for an `oauth2SecurityScheme`: the token endpoint is `tokenUrl`, or the
   * card's `flows.clientCredentials.tokenUrl` when the card verified against pinned keys (`cardVerification`); tokens
   * are cached until shortly before they expire, and dropped when the agent answers 401.
   */
  readonly oauth2?: {
    readonly clientId: string;
    readonly clientSecret: string;
    /** Default: every scope the card's requirement names for the scheme. */
    readonly scopes?: readonly string[];
    /**
     * Where the client id and secret are POSTed. Required unless the card is signed and verified against pinned keys;
     * an unverified card's token URL is never used (the call is refused, `A2aCredentialsRefusedError`).
     */
    readonly tokenUrl?: string;
    /** Extra form parameters (e.g. `audience`, `resource`). */
    readonly parameters?: Readonly<Record<string, string>>;
    /** `client_secret_basic` (default, RFC 6749 §2.3.1) or `client_secret_post`. */
    readonly authMethod?: 'client_secret_basic' | 'client_secret_post';
  };
  /**
   * Origins (`https://agent.example`, `http://127.0.0.1:50051`: scheme, host and port, nothing more) whose interfaces
   * may receive the credentials besides the card's own origin. A gRPC interface's origin is `https://host:port`, or
   * `http://host:port` when its channel is plaintext. Default none.
   */
  readonly allowedOrigins?: readonly string[];
  /** A client certificate (PEM), presented on every https and gRPC connection (`mtlsSecurityScheme`). */
  readonly mtls?: { readonly cert: string | Buffer; readonly key: string | Buffer; readonly passphrase?: string };
}

/**
 * Where the client may connect (the SSRF guard, for the card URL, every interface URL and the OAuth2 token URL):
 * public unicast addresses over https by default. The allowlist widens what is allowed; the lookup and post-connect
 * checks still run.
 */
export interface A2aClientNetworkOptions {
  /** Host names allowed whatever they resolve to, and over plain http too. */
  readonly allowedHosts?: readonly string[];
  /** Address ranges allowed though not public (`10.0.0.0/8`, `127.0.0.1/32`); an IP literal inside one may use plain http. */
  readonly allowedCidrs?: readonly string[];
  /** Plain http to any (allowed) host. Default false. */
  readonly allowHttp?: boolean;
  /** Resolves host names (default `dns.lookup`, all addresses); every address must pass. */
  readonly resolveHost?: (hostname: string) => Promise<readonly LookupAddress[]>;
}

/** Retries of idempotent calls on network errors, timeouts and Unavailable (503 / UNAVAILABLE). */
export interface A2aClientRetryOptions {
  /** Attempts in all, the first included. Default 3; 1 turns retries off. */
  readonly maxAttempts?: number;
  /** Ceiling of the first delay; it doubles each attempt, with full jitter. Default 200 ms. */
  readonly initialDelayMs?: number;
  /** Longest delay, `Retry-After` included. Default 5 s. */
  readonly maxDelayMs?: number;
}

/** Bounds on what the agent may send back; beyond them the answer is refused before it is parsed. */
export interface A2aClientLimits {
  /** The agent card. Default 1 MiB. */
  readonly maxCardBytes?: number;
  /** A unary answer. Default 16 MiB. */
  readonly maxResponseBytes?: number;
  /** One stream event. Default 4 MiB. */
  readonly maxEventBytes?: number;
}

/** Pinned keys for the card's signatures (spec §8.4): with either, an unsigned card or one that does not verify is refused. */
export interface A2aCardVerificationOptions {
  readonly keys?: JSONWebKeySet | JWK[];
  /** A JWK Set URL you trust (never the card's own `jku`). */
  readonly jwksUrl?: string;
  readonly algorithms?: CardSigningAlgorithm[];
}

/** TLS trust for https and gRPC (besides Node's bundled roots). */
export interface A2aClientTlsOptions {
  readonly ca?: string | Buffer | ReadonlyArray<string | Buffer>;
}

/** One agent, as `A2aClientModule.register({ agents: { name: options } })` or `new A2aAgentClient(options)` take it. */
export interface A2aAgentOptions {
  /** The card's URL, or the agent's origin (then `/.well-known/agent-card.json` of it, spec §8.2). */
  readonly cardUrl: string;
  readonly credentials?: A2aClientCredentials;
  /**
   * The bindings this client may use; the card's `supportedInterfaces` order decides among them (spec §8.3.2). Default
   * `['JSONRPC', 'HTTP+JSON', 'GRPC']`. GRPC loads `@grpc/grpc-js` (an optional peer) only when chosen.
   */
  readonly preferredTransports?: readonly ProtocolBinding[];
  readonly cardVerification?: A2aCardVerificationOptions;
  readonly network?: A2aClientNetworkOptions;
  readonly tls?: A2aClientTlsOptions;
  /** Per attempt: a unary call's answer, or a stream's start. Default 30 s. */
  readonly timeoutMs?: number;
  /** `false`: no retries. */
  readonly retry?: A2aClientRetryOptions | false;
  readonly limits?: A2aClientLimits;
  /** The card is used this long when its `Cache-Control` gives no `max-age`, and at most this long in any case (ms). Default 5 min / 1 h. */
  readonly cardMaxAgeMs?: { readonly default?: number; readonly max?: number };
  /** How long an interface that refused connections is passed over for the next one. Default 30 s. */
  readonly interfaceDownMs?: number;
  /** Extensions to activate on every call (`A2A-Extensions`, spec §4.6). */
  readonly extensions?: readonly string[];
  /** Extra headers (gRPC metadata) on every call. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The request `tenant`; default the chosen interface's (spec §8.3.2). */
  readonly tenant?: string;
  /**
   * Replaces the client's own HTTP stack (node:http with the SSRF guard at connect time). URLs and the addresses of
   * their hosts are still checked before each call. A plain-http host name is then pinned: the fetch gets the URL with
   * the checked address and a `Host` header, so it connects where the check looked. An https host name is handed over
   * as is (TLS needs the name), and the fetch resolves it again: nothing but a TLS ClientHello reaches an address DNS
   * rebinds it to, since that address cannot prove the name. A fetch that does not verify certificates, or that goes
   * through a proxy, must check the addresses it connects to itself.
   */
  readonly fetch?: typeof fetch;
  /**
   * Trace propagation and client spans through `@opentelemetry/api` (an optional peer, loaded with `import()` on the
   * first call): every call sends the active context as W3C `traceparent` / `tracestate` (gRPC: metadata), and, once
   * an SDK has registered a tracer provider, has a CLIENT span `a2a.client.<Operation>` whose context is the one sent.
   * Without the package, nothing. Default true; `false` sends no trace context and makes no span.
   */
  readonly tracing?: boolean;
  /**
   * The outbound audit trail: what this app delegated to the agent and what came of it, as `A2aAuditRecord`s with
   * `direction: 'outbound'` (messages sent and received, states seen, artifacts with their SHA-256). `true`: one JSON
   * line per record on Nest's logger (`A2aAudit`). Off by default; in `A2aClientModule`, the app's `A2A_AUDIT_SINK`
   * (A2aModule's option `audit`) is used when neither the agent nor `defaults` set it, and `false` declines it.
   */
  readonly audit?: A2aAuditSink | boolean;
}

/** What `defaults` may set for every agent. */
export type A2aAgentDefaults = Partial<Omit<A2aAgentOptions, 'cardUrl'>>;

/** Options of `A2aClientModule.register()` / `registerAsync()`. */
export interface A2aClientModuleOptions {
  /** The agents `A2aClient.agent(name)` returns clients for. */
  readonly agents?: Readonly<Record<string, A2aAgentOptions>>;
  /** Applied under every agent's own options (one level deep for `network`, `retry`, `limits`, `tls`, `cardMaxAgeMs`), and for `A2aClient.for(url)`. */
  readonly defaults?: A2aAgentDefaults;
}

/** Static options of the module, beside `useFactory`. */
export interface A2aClientModuleExtras {
  /** Register the module globally. Default false. */
  isGlobal?: boolean;
}

/** `preferredTransports` when unset: every binding, the card's order deciding. */
export const DEFAULT_PREFERRED_TRANSPORTS: readonly ProtocolBinding[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

/** The defaults of the options above, in one place. */
export const CLIENT_DEFAULTS = {
  timeoutMs: 30_000,
  maxAttempts: 3,
  initialDelayMs: 200,
  maxDelayMs: 5_000,
  maxCardBytes: 1024 * 1024,
  maxResponseBytes: 16 * 1024 * 1024,
  maxEventBytes: 4 * 1024 * 1024,
  cardMaxAgeMs: 5 * 60_000,
  cardMaxAgeCapMs: 60 * 60_000,
  interfaceDownMs: 30_000,
} as const;

const NESTED: ReadonlyArray<keyof A2aAgentOptions> = ['network', 'retry', 'limits', 'tls', 'cardMaxAgeMs'];

/** An agent's options over the defaults: the agent's win, field by field, one level deep for the nested option groups. */
export function withDefaults(options: A2aAgentOptions, defaults: A2aAgentDefaults = {}): A2aAgentOptions {
  const merged: Record<string, unknown> = { ...defaults, ...options };
  for (const key of NESTED) {
    const base = defaults[key as keyof A2aAgentDefaults];
    const own = options[key];
    if (isPlainObject(base) && isPlainObject(own)) merged[key] = { ...base, ...own };
  }
  return merged as unknown as A2aAgentOptions;
}

function isPlainObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
