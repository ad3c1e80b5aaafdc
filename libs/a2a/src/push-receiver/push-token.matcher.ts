import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares a presented `X-A2A-Notification-Token` with the expected ones in time independent of their contents and
 * lengths: every candidate is compared as a SHA-256 digest (equal lengths, as timingSafeEqual needs), and all of them
 * are compared every time, so neither a matching prefix nor which token matched shows in the timing.
 */
export class PushTokenMatcher {
  private readonly digests: readonly Buffer[];

  constructor(tokens: readonly string[]) {
    this.digests = tokens.map(digestOf);
  }

  matches(presented: string | undefined): boolean {
    if (presented === undefined) return false;
    const digest = digestOf(presented);
    let matched = false;
    for (const expected of this.digests) matched = timingSafeEqual(digest, expected) || matched;
    return matched;
  }
}

function digestOf(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
