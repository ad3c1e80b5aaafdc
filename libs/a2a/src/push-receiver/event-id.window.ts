import { createHash } from 'node:crypto';

/**
 * The most recent `capacity` event ids, to drop redeliveries of an event (a sender retries after a timeout even when
 * the first delivery arrived), each id within its sender's scope: ids are chosen by senders, so two senders may use
 * the same one (`1`, `2`… per task), and one must not suppress the other's events. A Map keeps insertion order, so the
 * oldest id is the first key: remembering an id is O(1) and the window never grows past its capacity. Keys are
 * digests, so the window's memory is bounded whatever senders send. A repeated id is not refreshed: it was seen when
 * first delivered, and retries come soon after.
 */
export class EventIdWindow {
  private readonly seen = new Map<string, true>();

  constructor(private readonly capacity: number) {}

  /**
   * Records `eventId` of `sender`; false when it was already in the window (a redelivery). Always true with capacity
   * 0. `eventId` holds no NUL (a header value cannot), which keeps every (eventId, sender) pair's key distinct.
   */
  firstSeen(eventId: string, sender: string): boolean {
    if (this.capacity === 0) return true;
    const key = createHash('sha256').update(eventId).update('\0').update(sender).digest('base64url');
    if (this.seen.has(key)) return false;
    if (this.seen.size >= this.capacity) this.seen.delete(this.seen.keys().next().value!);
    this.seen.set(key, true);
    return true;
  }

  get size(): number {
    return this.seen.size;
  }
}
