/** Option `push.circuitBreaker`. */
export interface PushCircuitBreakerOptions {
  /** Consecutive deliveries to one destination that timed out or could not connect before it is skipped. Default 5. */
  readonly failures?: number;
  /** How long it is skipped, in ms; then one trial delivery decides. Default 60,000. */
  readonly openMs?: number;
}

export const PUSH_CIRCUIT_BREAKER_DEFAULTS = { failures: 5, openMs: 60_000 } as const;

/** What became of a delivery, as the breaker counts it. */
export type DestinationOutcome = 'answered' | 'unreachable' | 'neither';

/** A state change worth one log line. */
export type CircuitChange = 'opened' | 'closed' | undefined;

interface Circuit {
  /** Consecutive unreachable outcomes. */
  failures: number;
  /** While open: until when (ms since the epoch). 0 while closed. */
  openUntil: number;
  /** Half-open: the one trial delivery is under way. */
  trial: boolean;
}

/** While a trial runs, the others look again after this long (or `openMs` if shorter). */
const TRIAL_WAIT_MS = 1_000;

/**
 * Circuit breakers per destination (host:port), on this replica: after `failures` consecutive deliveries that timed
 * out or could not connect, the destination is skipped for `openMs`; then one delivery is let through (half-open):
 * an answer (any HTTP status) closes the circuit, another failure opens it again. A receiver that answers, even with
 * errors, is never skipped: its deliveries are paced by the retry policy instead.
 */
export class PushCircuitBreaker {
  private readonly circuits = new Map<string, Circuit>();

  constructor(
    readonly options: Required<PushCircuitBreakerOptions>,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Whether a delivery to `host` may start now: undefined if so (the half-open trial included), else when to look
   * again (ms since the epoch).
   */
  blockedUntil(host: string): number | undefined {
    const circuit = this.circuits.get(host);
    if (!circuit || circuit.openUntil === 0) return undefined;
    const now = this.now();
    if (now < circuit.openUntil) return circuit.openUntil;
    if (circuit.trial) return now + Math.min(TRIAL_WAIT_MS, this.options.openMs);
    circuit.trial = true;
    return undefined;
  }

  /** Counts the outcome of a delivery {@link blockedUntil} let start; returns the state change, if any. */
  settled(host: string, outcome: DestinationOutcome): CircuitChange {
    const circuit = this.circuits.get(host);
    if (outcome === 'answered') {
      if (!circuit) return undefined;
      this.circuits.delete(host);
      return circuit.openUntil === 0 ? undefined : 'closed';
    }
    if (outcome === 'neither') {
      if (circuit) circuit.trial = false;
      return undefined;
    }
    const failing = circuit ?? { failures: 0, openUntil: 0, trial: false };
    this.circuits.set(host, failing);
    failing.failures++;
    const wasOpen = failing.openUntil !== 0;
    if (!wasOpen && failing.failures < this.options.failures) return undefined;
    failing.openUntil = this.now() + this.options.openMs;
    failing.trial = false;
    return wasOpen ? undefined : 'opened';
  }
}
