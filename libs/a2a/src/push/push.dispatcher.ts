import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { A2A_MODULE_OPTIONS } from '../a2a-module-definition.js';
import type { A2aModuleOptions } from '../a2a-module.options.js';
import { A2A_TASK_STORE, type TaskStore } from '../store/task.store.js';
import { pushEventId, type PushDeadLetter, type PushDelivery, type TaskPushStore } from '../store/task-push.store.js';
import { PushRetryPolicy } from './push-retry.policy.js';
import { PUSH_CIRCUIT_BREAKER_DEFAULTS, PushCircuitBreaker, type DestinationOutcome } from './push-circuit.breaker.js';
import { PushDeliveryLimiter } from './push-delivery.limiter.js';
import { PushMessages } from './push.messages.js';
import { A2aPushConfigs } from './push-configs.service.js';
import { positiveIntegerOption } from './push-delivery.options.js';
import type { DeliveryOutcome } from './webhook.outcome.js';
import { WebhookSender } from './webhook.sender.js';

const DEFAULT_CONCURRENCY = 64;
/** Half of DEFAULT_CONCURRENCY each: a dead receiver, or one owner, holds half the slots at most, and one busy receiver
 * still gets 32 deliveries at once, which is what a receiver on a LAN needs to reach its full rate. */
const DEFAULT_MAX_IN_FLIGHT_PER_HOST = 32;
const DEFAULT_MAX_IN_FLIGHT_PER_OWNER = 32;
const DEFAULT_POLL_INTERVAL_MS = 1_000;
/** A claimed delivery is held this much longer than an attempt may take: only a dead dispatcher's are taken over. */
const HOLD_MARGIN_MS = 10_000;
/** How long shutdown waits for deliveries in flight. */
const SHUTDOWN_WAIT_MS = 2_000;
/** A delivery held back by a cap waits here at most this long, well within its hold, then goes back to the outbox. */
const MAX_WAIT_MS = HOLD_MARGIN_MS / 2;

/** A claimed delivery waiting for a slot of its destination or owner. */
interface Held {
  delivery: PushDelivery;
  host: string;
  owner: string;
  since: number;
}

/**
 * Delivers the outbox (spec §4.3.3): every event of a task to each of its webhooks, in order per (task, webhook), at
 * least once, off the task's own path, so a slow or dead receiver delays nothing but its own deliveries. Failures
 * that may pass (network, timeouts, 408/425/429, 5xx) are retried with exponential backoff and full jitter, honouring
 * `Retry-After`; after `maxAttempts`, or at once for what never will (a refused address, a redirect, another 4xx),
 * the event is dead-lettered and logged. Any replica delivers any task's events: the outbox is in the task store.
 *
 * Fairness, per replica: at most `maxInFlightPerHost` deliveries go to one destination at once and `maxInFlightPerOwner`
 * for one owner's tasks; a delivery over either cap waits aside, holding none of the `concurrency` slots, so a
 * receiver that never answers stalls only its own. A destination that keeps timing out is skipped for a while
 * (`circuitBreaker`): its deliveries go back to the outbox with their attempts unused.
 *
 * @hideconstructor
 */
@Injectable()
export class A2aPushDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('A2aPush');
  private sender?: WebhookSender;
  private retries?: PushRetryPolicy;
  private concurrency = DEFAULT_CONCURRENCY;
  private holdMs = 0;
  private inFlight = 0;
  private limiter = new PushDeliveryLimiter(DEFAULT_MAX_IN_FLIGHT_PER_HOST, DEFAULT_MAX_IN_FLIGHT_PER_OWNER);
  private breaker?: PushCircuitBreaker;
  /** Claimed, held back by a cap, oldest first; at most `4 × concurrency`. */
  private held: Held[] = [];
  private pumping = false;
  private again = false;
  private scheduled = false;
  private stopped = false;
  private timer?: NodeJS.Timeout;

  constructor(
    @Inject(A2A_TASK_STORE) private readonly store: TaskStore,
    @Inject(A2A_MODULE_OPTIONS) private readonly options: A2aModuleOptions,
    private readonly configs: A2aPushConfigs,
  ) {
    const push = options.push;
    if (!push) return;
    this.sender = new WebhookSender(push);
    this.retries = new PushRetryPolicy(push);
    this.concurrency = push.concurrency ?? DEFAULT_CONCURRENCY;
    // The option check at bootstrap (a2a-options.schema.ts) has made sure these are positive integers.
    const perHost = push.maxInFlightPerHost ?? DEFAULT_MAX_IN_FLIGHT_PER_HOST;
    const perOwner = push.maxInFlightPerOwner ?? DEFAULT_MAX_IN_FLIGHT_PER_OWNER;
    this.limiter = new PushDeliveryLimiter(perHost, perOwner);
    if (push.circuitBreaker !== false)
      this.breaker = new PushCircuitBreaker({ ...PUSH_CIRCUIT_BREAKER_DEFAULTS, ...push.circuitBreaker });
    this.holdMs = positiveIntegerOption(push, 'totalTimeoutMs') + HOLD_MARGIN_MS;
  }

  /** Starts delivering the store's outbox, when the app has push notifications and a store that keeps them. */
  onApplicationBootstrap(): void {
    const push = this.store.push;
    if (!this.sender || !push) return;
    push.onEnqueued(() => this.kick());
    this.timer = setInterval(() => this.kick(), this.options.push?.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS);
    this.timer.unref();
    // Deliveries a previous run of this agent (or a replica that died) left in the outbox.
    this.kick();
  }

  /**
   * No new delivery starts; those in flight get a moment to finish and record their outcome (an unrecorded one is
   * retried once its hold expires, by whoever reads the outbox next).
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    // Those waiting for a slot go back to the outbox now, for whichever replica reads it next.
    const push = this.store.push;
    if (push) await Promise.all(this.held.splice(0).map((held) => this.giveBack(push, held.delivery, Date.now())));
    const deadline = Date.now() + SHUTDOWN_WAIT_MS;
    // A read of the outbox under way may still start deliveries: they are waited for too.
    while ((this.pumping || this.inFlight > 0) && Date.now() < deadline) await sleep(10);
  }

  /** The latest dead letters first, of one task or all. */
  deadLetters(query: { taskId?: string; limit?: number } = {}): Promise<PushDeadLetter[]> {
    return this.store.push?.deadLetters({ taskId: query.taskId, limit: query.limit ?? 100 }) ?? Promise.resolve([]);
  }

  /**
   * Reads the outbox soon: after the current write (a store calls this from inside one), once for any number of
   * kicks meanwhile, and again at once if kicked while reading.
   */
  private kick(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.pumping && !this.stopped) void this.pump(this.store.push!);
      else this.again = true;
    });
  }

  private async pump(push: TaskPushStore): Promise<void> {
    this.pumping = true;
    try {
      do {
        this.again = false;
        this.startHeld(push);
        const free = this.concurrency - this.inFlight;
        // Held deliveries take no slot: a batch of them only means reading on, up to a bound.
        if (free <= 0 || this.held.length >= 4 * this.concurrency) break;
        const due = await push.claimDue(free, this.holdMs);
        for (const delivery of due) this.dispatch(push, delivery);
        // A full batch may have left more behind.
        if (due.length === free) this.again = true;
      } while (this.again && !this.stopped);
    } catch (error) {
      this.logger.warn(`Could not read the push outbox: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.pumping = false;
    }
  }

  /** Starts the delivery if its destination and owner have a slot, else holds it back until they do. */
  private dispatch(push: TaskPushStore, delivery: PushDelivery): void {
    const held = {
      delivery,
      host: destinationOf(delivery.config.url),
      owner: `${delivery.config.scope.tenant}\u0000${delivery.config.scope.owner}`,
      since: Date.now(),
    };
    if (!this.tryStart(push, held)) this.held.push(held);
  }

  /** Starts the held deliveries that have a slot now, and gives back those that waited too long. */
  private startHeld(push: TaskPushStore): void {
    if (this.held.length === 0) return;
    const now = Date.now();
    // Compacted in place: with one busy destination this runs on every delivery's end, over a full list.
    let kept = 0;
    for (const held of this.held) {
      if (this.inFlight < this.concurrency && this.tryStart(push, held)) continue;
      if (now - held.since >= MAX_WAIT_MS) void this.giveBack(push, held.delivery, now);
      else this.held[kept++] = held;
    }
    this.held.length = kept;
  }

  /** Starts the delivery unless a cap holds it back (false); a skipped destination's goes back to the outbox. */
  private tryStart(push: TaskPushStore, held: Held): boolean {
    if (!this.limiter.tryAcquire(held.host, held.owner)) return false;
    const blockedUntil = this.breaker?.blockedUntil(held.host);
    if (blockedUntil !== undefined) {
      this.limiter.release(held.host, held.owner);
      void this.giveBack(push, held.delivery, blockedUntil);
      return true;
    }
    void this.deliver(push, held);
    return true;
  }

  /** Back to the outbox, not attempted, due at `atMs`. */
  private async giveBack(push: TaskPushStore, delivery: PushDelivery, atMs: number): Promise<void> {
    try {
      await push.release?.(delivery, atMs);
    } catch (error) {
      // Its hold expires instead.
      this.logger.warn(
        `Could not give back a push delivery of task ${delivery.config.taskId}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  private async deliver(push: TaskPushStore, { delivery, host, owner }: Held): Promise<void> {
    this.inFlight++;
    try {
      const outcome = await this.attempt(delivery);
      this.count(host, outcome);
      await this.settle(push, delivery, outcome);
    } catch (error) {
      // The store failed to record the outcome: the hold expires and the delivery is tried again (at least once).
      this.logger.warn(
        `Could not record a push delivery of task ${delivery.config.taskId}: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      this.inFlight--;
      this.limiter.release(host, owner);
      // Its webhook's next event is due now, if there is one; and a held delivery may start.
      this.kick();
    }
  }

  /** Tells the breaker how the destination behaved: answered (any status), unreachable (timeout, connection), or neither. */
  private count(host: string, outcome: DeliveryOutcome): void {
    if (!this.breaker) return;
    const seen: DestinationOutcome =
      outcome.status !== undefined ? 'answered' : outcome.kind === 'retry' ? 'unreachable' : 'neither';
    const change = this.breaker.settled(host, seen);
    const { failures, openMs } = this.breaker.options;
    if (change === 'opened') this.logger.warn(PushMessages.circuitOpened(host, failures, openMs));
    if (change === 'closed') this.logger.log(PushMessages.circuitClosed(host));
  }

  private async attempt(delivery: PushDelivery): Promise<DeliveryOutcome> {
    let secrets;
    try {
      secrets = this.configs.seal.open(delivery.config);
    } catch (error) {
      return {
        kind: 'permanent',
        error: `The config's secrets cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    return this.sender!.send({
      url: delivery.config.url,
      ...secrets,
      eventId: pushEventId(delivery.config.taskId, delivery.seq),
      body: JSON.stringify(delivery.payload),
    });
  }

  private async settle(push: TaskPushStore, delivery: PushDelivery, outcome: DeliveryOutcome): Promise<void> {
    if (outcome.kind === 'delivered') return push.delivered(delivery);
    const attempts = delivery.attempts + 1;
    if (outcome.kind === 'retry' && attempts < this.retries!.maxAttempts) {
      return push.retryAt(
        delivery,
        Date.now() + this.retries!.nextDelayMs(delivery.attempts, outcome.retryAfterMs),
        outcome.error,
      );
    }
    const letter: PushDeadLetter = {
      tenant: delivery.config.scope.tenant,
      taskId: delivery.config.taskId,
      configId: delivery.config.id,
      eventId: pushEventId(delivery.config.taskId, delivery.seq),
      attempts,
      firstAt: new Date(delivery.firstAt).toISOString(),
      lastAt: new Date().toISOString(),
      ...(outcome.status === undefined ? {} : { lastStatus: outcome.status }),
      lastError: outcome.error,
    };
    this.logger.warn(
      `Push notification ${letter.eventId} to config ${letter.configId} dead-lettered after ${attempts} attempt(s): ${outcome.error}`,
    );
    return push.deadLetter(delivery, letter);
  }
}

/** A webhook's destination as the caps and breakers count it: host:port, the default port spelled out. */
function destinationOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || (parsed.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    // The sender refuses it for good: any key will do.
    return url;
  }
}
