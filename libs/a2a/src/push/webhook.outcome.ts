import { parseRetryAfter } from './retry-after.header.js';
import { PushMessages } from './push.messages.js';

/**
 * What became of one delivery attempt. Only a 2xx is `delivered` (spec §4.3.3); `retry` is worth another attempt later
 * (the retry policy decides when, honouring `retryAfterMs`); `permanent` never will be (a bad config, a refused
 * address, a redirect, a 4xx other than 408/425/429). `error` is safe to log: no credentials, tokens or URL queries.
 */
export type DeliveryOutcome =
  | { readonly kind: 'delivered'; readonly status: number }
  | { readonly kind: 'retry'; readonly status?: number; readonly retryAfterMs?: number; readonly error: string }
  | { readonly kind: 'permanent'; readonly status?: number; readonly error: string };

// Request Timeout, Too Early, Too Many Requests: the receiver asks to be tried again.
const RETRIED_4XX: ReadonlySet<number> = new Set([408, 425, 429]);

/** Classifies a webhook's answer; `shownUrl` is the redacted URL for the message. */
export function outcomeOfStatus(
  status: number,
  retryAfter: string | readonly string[] | undefined,
  shownUrl: string,
  now = Date.now(),
): DeliveryOutcome {
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  // A redirect could point anywhere, the agent's own network included: following it would bypass the create-time check.
  if (status >= 300 && status < 400)
    return { kind: 'permanent', status, error: PushMessages.redirected(shownUrl, status) };
  if (RETRIED_4XX.has(status) || (status >= 500 && status < 600)) {
    const retryAfterMs = parseRetryAfter(retryAfter, now);
    const error = PushMessages.answered(shownUrl, status);
    return retryAfterMs === undefined
      ? { kind: 'retry', status, error }
      : { kind: 'retry', status, retryAfterMs, error };
  }
  return { kind: 'permanent', status, error: PushMessages.answered(shownUrl, status) };
}
