import type { PushDeliveryOptions } from './push-delivery.options.js';
import type { PushSecretsCipherOptions } from './push-secrets.cipher.js';

/** Option `push` of `A2aModule.forRoot()`: where webhooks may go, how deliveries are paced, and how secrets are kept. */
export interface A2aPushOptions extends PushDeliveryOptions {
  /** Most webhooks one task may have (Create beyond it: InvalidParams). Default 10. */
  maxConfigsPerTask?: number;
  /** Deliveries in flight at once on this replica: a slow or dead webhook holds one, never the others. Default 32. */
  concurrency?: number;
  /** How often the outbox is read for retries that came due and deliveries left by other replicas, in ms. Default 1000. */
  pollIntervalMs?: number;
  /**
   * AES-256-GCM keys for the configs' `token` and `credentials` at rest (a database store). Without them they are
   * stored as given, with a warning at boot when the store outlives the process.
   */
  secrets?: PushSecretsCipherOptions;
  /** Deliveries in flight at once to one webhook host, so that one slow host cannot hold every slot. Default 4. */
  maxInFlightPerHost?: number;
  /** Deliveries in flight at once for the tasks of one owner (principal), so that one owner cannot hold every slot. Default 8. */
  maxInFlightPerOwner?: number;
  /**
   * Stops delivering to a webhook host after `failures` failed deliveries in a row, for `openMs` ms, then tries again
   * with one delivery. `false` turns it off. Default `{ failures: 5, openMs: 60_000 }`.
   */
  circuitBreaker?: false | { failures?: number; openMs?: number };
}
