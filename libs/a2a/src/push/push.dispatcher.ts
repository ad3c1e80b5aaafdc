import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { A2A_MODULE_OPTIONS } from '../a2a-module-definition.js';
import type { A2aModuleOptions } from '../a2a-module.options.js';
import { A2A_TASK_STORE, type TaskStore } from '../store/task.store.js';
import { pushEventId, type PushDeadLetter, type PushDelivery, type TaskPushStore } from '../store/task-push.store.js';
import { PushRetryPolicy } from './push-retry.policy.js';
import { A2aPushConfigs } from './push-configs.service.js';
import { positiveIntegerOption } from './push-delivery.options.js';
import type { DeliveryOutcome } from './webhook.outcome.js';
import { WebhookSender } from './webhook.sender.js';

const DEFAULT_CONCURRENCY = 32;
const DEFAULT_POLL_INTERVAL_MS = 1_000;
/** A claimed delivery is held this much longer than an attempt may take: only a dead dispatcher's are taken over. */
const HOLD_MARGIN_MS = 10_000;
/** How long shutdown waits for deliveries in flight. */
const SHUTDOWN_WAIT_MS = 2_000;

/**
 * Delivers the outbox (R54–R56): every event of a task to each of its webhooks, in order per (task, webhook), at
 * least once, off the task's own path, so a slow or dead receiver delays nothing but its own deliveries. Failures
 * that may pass (network, timeouts, 408/425/429, 5xx) are retried with exponential backoff and full jitter, honouring
 * `Retry-After`; after `maxAttempts`, or at once for what never will (a refused address, a redirect, another 4xx),
 * the event is dead-lettered and logged. Any replica delivers any task's events: the outbox is in the task store.
 */
@Injectable()
export class A2aPushDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('A2aPush');
  private sender?: WebhookSender;
  private retries?: PushRetryPolicy;
  private concurrency = DEFAULT_CONCURRENCY;
  private holdMs = 0;
  private inFlight = 0;
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
    this.holdMs = positiveIntegerOption(push, 'totalTimeoutMs') + HOLD_MARGIN_MS;
  }

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
        const free = this.concurrency - this.inFlight;
        if (free <= 0) break;
        const due = await push.claimDue(free, this.holdMs);
        for (const delivery of due) void this.deliver(push, delivery);
        // A full batch may have left more behind.
        if (due.length === free) this.again = true;
      } while (this.again && !this.stopped);
    } catch (error) {
      this.logger.warn(`Could not read the push outbox: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.pumping = false;
    }
  }

  private async deliver(push: TaskPushStore, delivery: PushDelivery): Promise<void> {
    this.inFlight++;
    try {
      await this.settle(push, delivery, await this.attempt(delivery));
    } catch (error) {
      // The store failed to record the outcome: the hold expires and the delivery is tried again (at least once).
      this.logger.warn(`Could not record a push delivery of task ${delivery.config.taskId}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.inFlight--;
      // Its webhook's next event is due now, if there is one.
      this.kick();
    }
  }

  private async attempt(delivery: PushDelivery): Promise<DeliveryOutcome> {
    let secrets;
    try {
      secrets = this.configs.seal.open(delivery.config);
    } catch (error) {
      return { kind: 'permanent', error: `The config's secrets cannot be read: ${error instanceof Error ? error.message : String(error)}` };
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
      return push.retryAt(delivery, Date.now() + this.retries!.nextDelayMs(delivery.attempts, outcome.retryAfterMs), outcome.error);
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
    this.logger.warn(`Push notification ${letter.eventId} to config ${letter.configId} dead-lettered after ${attempts} attempt(s): ${outcome.error}`);
    return push.deadLetter(delivery, letter);
  }
}
