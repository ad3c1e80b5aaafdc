import { positiveIntegerOption, type PushDeliveryOptions } from './push-delivery.options.js';
import { InvalidPushOptionsError } from './push.errors.js';
import { PushMessages } from './push.messages.js';

/** The part of the push options that paces retries. */
export type PushRetryOptions = Pick<PushDeliveryOptions, 'baseDelayMs' | 'maxDelayMs' | 'maxAttempts'>;

/**
 * When to try a failed delivery again (spec §4.3.3, §13.2): exponential backoff with full jitter, so
 * the retries of many tasks failing at once (a receiver restarting) spread out instead of arriving together.
 */
export class PushRetryPolicy {
  /** Attempts per event and config, the first included; then the delivery is dead-lettered. */
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;

  constructor(options: PushRetryOptions = {}) {
    this.baseDelayMs = positiveIntegerOption(options, 'baseDelayMs');
    this.maxDelayMs = positiveIntegerOption(options, 'maxDelayMs');
    this.maxAttempts = positiveIntegerOption(options, 'maxAttempts');
    if (this.maxDelayMs < this.baseDelayMs) {
      throw new InvalidPushOptionsError(
        PushMessages.invalidOption('maxDelayMs', this.maxDelayMs, `at least baseDelayMs (${this.baseDelayMs})`),
      );
    }
  }

  /**
   * The delay before the next attempt: `random(0, min(maxDelay, base·2^attempt))`, where `attempt` is 0 after the
   * first failure, 1 after the second… A receiver's `Retry-After` is honoured as a minimum, up to `maxDelayMs`.
   */
  nextDelayMs(attempt: number, retryAfterMs?: number, random: () => number = Math.random): number {
    const exponent = Math.min(Math.max(0, Math.floor(attempt) || 0), 52);
    const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** exponent);
    const r = random();
    const jittered = Math.floor((r >= 0 && r < 1 ? r : 0) * ceiling);
    const floor = retryAfterMs !== undefined && retryAfterMs >= 0 ? retryAfterMs : 0;
    return Math.min(this.maxDelayMs, Math.max(jittered, floor));
  }

  /** Whether a delivery that has failed `attemptsMade` times may be tried again. */
  hasAttemptsLeft(attemptsMade: number): boolean {
    return attemptsMade < this.maxAttempts;
  }
}
