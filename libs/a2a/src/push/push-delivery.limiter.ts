/**
 * Deliveries in flight at once, per destination (host:port, option `push.maxInFlightPerHost`) and per task owner
 * (tenant + owner, `push.maxInFlightPerOwner`), on this replica: a receiver that never answers, or one owner's many
 * webhooks, hold that many of the dispatcher's slots at most, never all of them.
 */
export class PushDeliveryLimiter {
  private readonly byHost = new Map<string, number>();
  private readonly byOwner = new Map<string, number>();

  constructor(
    private readonly perHost: number,
    private readonly perOwner: number,
  ) {}

  /** Takes a slot of both, if both have one free. */
  tryAcquire(host: string, owner: string): boolean {
    const ofHost = this.byHost.get(host) ?? 0;
    const ofOwner = this.byOwner.get(owner) ?? 0;
    if (ofHost >= this.perHost || ofOwner >= this.perOwner) return false;
    this.byHost.set(host, ofHost + 1);
    this.byOwner.set(owner, ofOwner + 1);
    return true;
  }

  /** Gives back the slots {@link tryAcquire} took. */
  release(host: string, owner: string): void {
    decrement(this.byHost, host);
    decrement(this.byOwner, owner);
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left <= 0) counts.delete(key);
  else counts.set(key, left);
}
