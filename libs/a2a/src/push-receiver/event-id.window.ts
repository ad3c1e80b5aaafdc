import { createHash } from 'node:crypto';

/** Ids longer than this are remembered by their digest, so the window's memory is bounded whatever senders send. */
const MAX_KEPT_ID_LENGTH = 64;

/**
 * The most recent `capacity` event ids, to drop redeliveries of an event (a sender retries after a timeout even when
 * the first delivery arrived). A Map keeps insertion order, so the oldest id is the first key: remembering an id is
 * O(1) and the window never grows past its capacity. A repeated id is not refreshed: it was seen when first delivered,
 * and retries come soon after.
 */
export class EventIdWindow {
  private readonly seen = new Map<string, true>();

  constructor(private readonly capacity: number) {}

  /** Records `eventId`; false when it was already in the window (a redelivery). Always true with capacity 0. */
  firstSeen(eventId: string): boolean {
    if (this.capacity === 0) return true;
    const key = eventId.length > MAX_KEPT_ID_LENGTH ? `#${createHash('sha256').update(eventId).digest('base64url')}` : `=${eventId}`;
    if (this.seen.has(key)) return false;
    if (this.seen.size >= this.capacity) this.seen.delete(this.seen.keys().next().value!);
    this.seen.set(key, true);
    return true;
  }

  get size(): number {
    return this.seen.size;
  }
}
