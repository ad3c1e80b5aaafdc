import type { TaskScope } from '../context/call-context.js';
import type { StreamResponse } from '../protocol/a2a.types.js';
import type { PushDeadLetter, PushDelivery, StoredPushConfig, TaskPushStore } from './task-push.store.js';

/** Dead letters kept (oldest dropped): enough to read what went wrong, bounded in a long-running process. */
const MAX_DEAD_LETTERS = 1000;

interface Pending {
  seq: number;
  payload: StreamResponse;
  attempts: number;
  firstAt: number;
  nextAt: number;
}

/** One webhook's outbox: its events in commit order; the head is the one being delivered or due next. */
interface Queue {
  config: StoredPushConfig;
  pending: Pending[];
  heldUntil: number;
}

/** The in-memory store's push configs and outbox: nothing survives a restart, as nothing else there does. */
export class InMemoryPushStore implements TaskPushStore {
  /** Task id → config id → its outbox, in creation order. */
  private readonly queues = new Map<string, Map<string, Queue>>();
  /** The outboxes with events pending: what claimDue looks at, however many idle configs there are. */
  private readonly waiting = new Set<Queue>();
  private readonly letters: PushDeadLetter[] = [];
  private readonly listeners: Array<() => void> = [];

  async saveConfig(config: StoredPushConfig, maxPerTask: number): Promise<boolean> {
    const ofTask = this.queues.get(config.taskId) ?? new Map<string, Queue>();
    const existing = ofTask.get(config.id);
    if (existing && !sameScope(existing.config.scope, config.scope)) return false;
    if (!existing && ofTask.size >= maxPerTask) return false;
    if (existing) existing.config = { ...config };
    else ofTask.set(config.id, { config: { ...config }, pending: [], heldUntil: 0 });
    this.queues.set(config.taskId, ofTask);
    return true;
  }

  async getConfig(taskId: string, id: string, scope: TaskScope): Promise<StoredPushConfig | undefined> {
    const queue = this.queues.get(taskId)?.get(id);
    return queue && sameScope(queue.config.scope, scope) ? { ...queue.config } : undefined;
  }

  async listConfigs(taskId: string, scope: TaskScope): Promise<StoredPushConfig[]> {
    return [...(this.queues.get(taskId)?.values() ?? [])]
      .filter((queue) => sameScope(queue.config.scope, scope))
      .map((queue) => ({ ...queue.config }));
  }

  async deleteConfig(taskId: string, id: string, scope: TaskScope): Promise<void> {
    const ofTask = this.queues.get(taskId);
    const queue = ofTask?.get(id);
    if (!ofTask || !queue || !sameScope(queue.config.scope, scope)) return;
    ofTask.delete(id);
    this.waiting.delete(queue);
    if (ofTask.size === 0) this.queues.delete(taskId);
  }

  /** Called by the task store when it forgets the task (evicted, expired): its configs and their outbox go with it. */
  dropTask(taskId: string): void {
    const ofTask = this.queues.get(taskId);
    if (!ofTask) return;
    for (const queue of ofTask.values()) this.waiting.delete(queue);
    this.queues.delete(taskId);
  }

  /** Whether the task has webhooks: the task store builds their events only then. */
  hasConfigs(taskId: string): boolean {
    return this.queues.has(taskId);
  }

  /** Called by the task store in the write that commits the events: one delivery per config of the task. */
  enqueue(taskId: string, events: ReadonlyArray<{ seq: number; payload: StreamResponse }>): void {
    const ofTask = this.queues.get(taskId);
    if (!ofTask || events.length === 0) return;
    const now = Date.now();
    for (const queue of ofTask.values()) {
      for (const { seq, payload } of events)
        queue.pending.push({ seq, payload, attempts: 0, firstAt: now, nextAt: now });
      this.waiting.add(queue);
    }
    for (const listener of this.listeners) listener();
  }

  async claimDue(limit: number, holdMs: number): Promise<PushDelivery[]> {
    const now = Date.now();
    const due: PushDelivery[] = [];
    for (const queue of this.waiting) {
      const head = queue.pending[0];
      if (queue.heldUntil > now || head.nextAt > now) continue;
      queue.heldUntil = now + holdMs;
      due.push({
        config: { ...queue.config },
        seq: head.seq,
        payload: head.payload,
        attempts: head.attempts,
        firstAt: head.firstAt,
      });
      if (due.length >= limit) return due;
    }
    return due;
  }

  async delivered(delivery: PushDelivery): Promise<void> {
    this.settle(delivery, (queue) => this.shift(queue));
  }

  async retryAt(delivery: PushDelivery, atMs: number): Promise<void> {
    this.settle(delivery, (queue) => {
      queue.pending[0].attempts = delivery.attempts + 1;
      queue.pending[0].nextAt = atMs;
    });
  }

  async deadLetter(delivery: PushDelivery, letter: PushDeadLetter): Promise<void> {
    this.letters.push({ ...letter });
    if (this.letters.length > MAX_DEAD_LETTERS) this.letters.shift();
    this.settle(delivery, (queue) => this.shift(queue));
  }

  async release(delivery: PushDelivery, atMs: number): Promise<void> {
    this.settle(delivery, (queue) => {
      queue.pending[0].nextAt = Math.max(queue.pending[0].nextAt, atMs);
      // Behind the others: the next claim looks at them first.
      this.waiting.delete(queue);
      this.waiting.add(queue);
    });
  }

  async deadLetters(query: { taskId?: string; limit: number }): Promise<PushDeadLetter[]> {
    const found: PushDeadLetter[] = [];
    for (let i = this.letters.length - 1; i >= 0 && found.length < query.limit; i--) {
      if (query.taskId === undefined || this.letters[i].taskId === query.taskId) found.push({ ...this.letters[i] });
    }
    return found;
  }

  onEnqueued(listener: () => void): void {
    this.listeners.push(listener);
  }

  private shift(queue: Queue): void {
    queue.pending.shift();
    if (queue.pending.length === 0) this.waiting.delete(queue);
  }

  /** Applies `change` to the delivery's queue if it is still the head of it (the config may have been deleted since). */
  private settle(delivery: PushDelivery, change: (queue: Queue) => void): void {
    const queue = this.queues.get(delivery.config.taskId)?.get(delivery.config.id);
    if (!queue || queue.pending[0]?.seq !== delivery.seq) return;
    change(queue);
    queue.heldUntil = 0;
  }
}

function sameScope(a: TaskScope, b: TaskScope): boolean {
  return a.tenant === b.tenant && a.owner === b.owner;
}
