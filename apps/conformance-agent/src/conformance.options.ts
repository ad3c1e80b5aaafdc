import type { A2aGrpcOptions } from '../../../libs/a2a/src/grpc.js';
import type { A2aInspectorOptions, A2aPushOptions, CardSigningKey } from '../../../libs/a2a/src/index.js';
import type { EventBus, TaskStore } from '../../../libs/a2a/src/store.js';
import type { A2aCompatOptions } from '../../../libs/a2a/src/compat/compat.options.js';
import type { ConformanceSecurity } from './conformance.security.js';

/** How the conformance agent is deployed; `main.ts` fills it from the environment, tests pass their own. */
export interface ConformanceOptions {
  /** Public base URL written into the card, e.g. `http://localhost:3001`. */
  baseUrl: string;
  /**
   * How long a task started by a `test-subscribe-message-id…` / `test-resubscribe-message-id…` message stays WORKING,
   * in ms. Default 4000: 2 × the TCK's default `TCK_STREAMING_TIMEOUT` of 2 seconds.
   */
  subscribeHoldMs?: number;
  /** The gRPC binding: where it binds and what the card advertises. Off when unset. */
  grpc?: A2aGrpcOptions;
  /** API keys and a JWT issuer, from the environment (CONFORMANCE-AGENT.md, "Security"). Anonymous when unset. */
  security?: ConformanceSecurity;
  /** Signs the card, from `A2A_CARD_SIGNING_KEY` (a PEM PKCS#8 Ed25519 private key file). Unsigned when unset. */
  cardSigningKey?: CardSigningKey;
  /** Task events through Redis from `A2A_REDIS_URL` (CONFORMANCE-AGENT.md, "Replicas"). In process when unset. */
  eventBus?: EventBus;
  /** Where tasks live: PostgreSQL from `A2A_POSTGRES_URL` (CONFORMANCE-AGENT.md, "Replicas"). In memory when unset. */
  taskStore?: TaskStore;
  /** Lease TTL of running skills on a shared store (`A2A_LEASE_TTL_MS`); the module's default when unset. */
  leaseTtlMs?: number;
  /**
   * Push is always on (CONFORMANCE-AGENT.md, "Push"); `A2A_PUSH_ALLOW` (comma-separated hosts or CIDRs) exempts those
   * webhooks from the SSRF guard, on any port, and lets them use plain http. The rest of option `push` is for tests (faster retries),
   * and so is `false`, which turns push off to test an agent without it (spec §3.3.4).
   */
  push?: false | ({ allow?: string } & Omit<A2aPushOptions, 'allowedHosts' | 'allowedCidrs'>);
  /** Module option `compat`: `{ v03: true }` from `A2A_COMPAT_V03=1` also serves A2A v0.3 clients. Off when unset. */
  compat?: A2aCompatOptions;
  /** Module option `inspector`: the browser page for development. Off when unset. */
  inspector?: A2aInspectorOptions;
}

export const CONFORMANCE_OPTIONS = Symbol('CONFORMANCE_OPTIONS');

export const DEFAULT_SUBSCRIBE_HOLD_MS = 4000;
