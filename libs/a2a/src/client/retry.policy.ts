import { A2aClientError, A2aTransportError } from './a2a-client.errors.js';
import { A2aClientMessages } from './a2a-client.messages.js';
import { CLIENT_DEFAULTS, type A2aClientRetryOptions } from './a2a-client.options.js';

/**
 * When and how long the client waits before trying an idempotent call again: on network errors, timeouts and the
 * agent's Unavailable (503 / UNAVAILABLE), with exponential backoff and full jitter, and never sooner than the
 * answer's `Retry-After` (capped by `maxDelayMs`).
 */
export class RetryPolicy {
  readonly maxAttempts: number;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(options: A2aClientRetryOptions | false | undefined) {
    this.maxAttempts =
      options === false ? 1 : Math.max(1, Math.floor(options?.maxAttempts ?? CLIENT_DEFAULTS.maxAttempts));
    this.initialDelayMs =
      options === false ? 0 : Math.max(0, options?.initialDelayMs ?? CLIENT_DEFAULTS.initialDelayMs);
    this.maxDelayMs = options === false ? 0 : Math.max(0, options?.maxDelayMs ?? CLIENT_DEFAULTS.maxDelayMs);
  }

  /** Whether `error`, the `failures`-th in a row (1-based), is worth another attempt. */
  shouldRetry(error: unknown, failures: number): boolean {
    return failures < this.maxAttempts && error instanceof A2aClientError && error.retryable;
  }

  /** The wait before the attempt after the `failures`-th failure. */
  delayMs(failures: number, error: unknown): number {
    const ceiling = Math.min(this.maxDelayMs, this.initialDelayMs * 2 ** Math.max(0, failures - 1));
    const jittered = Math.random() * ceiling;
    const retryAfter = (error as { retryAfterMs?: number } | undefined)?.retryAfterMs;
    return retryAfter === undefined ? jittered : Math.min(this.maxDelayMs, Math.max(retryAfter, jittered));
  }
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs one attempt under its own AbortSignal, aborted by the caller's `signal` (→ `Aborted`) or after `timeoutMs`
 * (→ `Timeout`; 0 means none). Whatever the attempt rejects with once its signal fired, the reason is what is thrown.
 */
export async function withDeadline<T>(
  what: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const attempt = new AbortController();
  const timer =
    timeoutMs > 0
      ? setTimeout(
          () => attempt.abort(new A2aTransportError('Timeout', A2aClientMessages.timeout(what, timeoutMs))),
          timeoutMs,
        )
      : undefined;
  const onAbort = () => attempt.abort(abortedError(what, signal!.reason));
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await run(attempt.signal);
  } catch (error) {
    throw attempt.signal.aborted ? attempt.signal.reason : error;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/** The error a call ends with when its caller aborted it. */
export function abortedError(what: string, reason: unknown): A2aTransportError {
  return new A2aTransportError('Aborted', A2aClientMessages.aborted(what), { cause: reason });
}
