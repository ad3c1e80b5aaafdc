import type { JWTPayload } from 'jose';

/** Longest a verification is reused: a key the IdP withdraws stops working within this time. */
const REUSE_MS = 60_000;
const MAX_ENTRIES = 10_000;

/**
 * Tokens whose signature and claims passed, so a client that sends the same token on every call pays for one
 * signature check a minute rather than one per call. An entry is used only while the token is unexpired (with the
 * scheme's skew) and for at most a minute; only successes are kept, so a bad token is checked every time.
 */
export class VerifiedTokenCache {
  private readonly entries = new Map<string, { payload: JWTPayload; reuseUntil: number }>();

  constructor(private readonly clockToleranceSeconds: number) {}

  get(token: string, now: number): JWTPayload | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    const exp = entry.payload.exp;
    if (now < entry.reuseUntil && (exp === undefined || now < (exp + this.clockToleranceSeconds) * 1000))
      return entry.payload;
    this.entries.delete(token);
    return undefined;
  }

  set(token: string, payload: JWTPayload, now: number): void {
    // The oldest entry goes first: Maps iterate in insertion order.
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(token, { payload, reuseUntil: now + REUSE_MS });
  }
}
