import type { PushCircuitBreakerOptions } from './push-circuit.breaker.js';
import type { PushDeliveryOptions } from './push-delivery.options.js';
import type { PushSecretsCipherOptions } from './push-secrets.cipher.js';

/** Option `push` of `A2aModule.forRoot()`: where webhooks may go, how deliveries are paced, and how secrets are kept. */
export interface A2aPushOptions extends PushDeliveryOptions {
  /** Most webhooks one task may have (Create beyond it: InvalidParams). Default 10. */
  maxConfigsPerTask?: number;
  /** Deliveries in flight at once on this replica: a slow or dead webhook holds one, never the others. Default 64. */
  concurrency?: number;
  /**
   * Deliveries in flight at once to one destination (the webhook URL's host:port) on this replica, so that a receiver
   * that never answers holds this many of `concurrency`, not all. A delivery held back waits without taking a slot of
   * `concurrency` and without using an attempt. Per replica: N replicas may each have this many in flight. Default 32.
   */
  maxInFlightPerHost?: number;
  /**
   * Deliveries in flight at once for the tasks of one owner (tenant + owner) on this replica, whatever their
   * destinations; held back as for `maxInFlightPerHost`. Per replica. Default 32.
   */
  maxInFlightPerOwner?: number;
  /**
   * Skips a destination (host:port) whose last `failures` deliveries in a row timed out or could not connect, for
   * `openMs`; then one trial delivery decides whether it is skipped again. Skipped deliveries stay in the outbox,
   * their attempts unused, and run once it reopens. Logged once when a destination is skipped and once when it
   * answers again. Per replica: each replica learns of a dead receiver on its own. Default
   * `{ failures: 5, openMs: 60_000 }`; `false` turns it off.
   */
  circuitBreaker?: PushCircuitBreakerOptions | false;
  /** How often the outbox is read for retries that came due and deliveries left by other replicas, in ms. Default 1000. */
  pollIntervalMs?: number;
  /**
   * AES-256-GCM keys for the configs' `token` and `credentials` at rest (a database store). Without them they are
   * stored as given, with a warning at boot when the store outlives the process.
   */
  secrets?: PushSecretsCipherOptions;
}
