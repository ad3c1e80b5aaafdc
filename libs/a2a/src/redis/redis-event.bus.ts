import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Observable, Subject } from 'rxjs';
import type { EventBus, TaskEventRecord } from '../bus/event-bus.js';
import { withinDeadline } from '../health/within-deadline.js';
import { decodeTaskEvent, encodeTaskEvent } from './task-event.message.js';

export type RedisEventBusOptions = ({ url: string; client?: undefined } | { client: Redis; url?: undefined }) & {
  /** Starts every channel name, so that several agents (or test runs) can share one Redis. Default `a2a:`. */
  prefix?: string;
};

type ConnectionName = 'command' | 'subscriber';

/** How long `healthCheck()` waits for Redis to answer PING. */
const HEALTH_CHECK_TIMEOUT_MS = 2_000;

interface WatchedTask {
  readonly subject: Subject<TaskEventRecord>;
  /** Resolves once Redis has confirmed the subscription to the task's channel. */
  readonly subscribed: Promise<void>;
  readonly confirm: () => void;
}

/**
 * An {@link EventBus} shared by replicas through Redis Pub/Sub: one channel per task, `<prefix>t:<taskId>`, subscribed
 * once per replica while the task has watchers there. Nothing is stored in Redis; records are JSON.
 *
 * A record reaches the publishing replica's own watchers synchronously, as with the in-process bus, and its echo from
 * Redis is dropped: local streams neither wait for Redis nor depend on it. Records of other replicas arrive through
 * Redis, in the order each replica published them, once this replica's subscription is confirmed (see {@link ready}).
 *
 * Redis being down never fails a publish or a watch: the bus logs it once, keeps delivering locally, resubscribes on
 * reconnect and then emits {@link resync$}, since records published meanwhile are lost.
 */
export class RedisEventBus implements EventBus, OnApplicationShutdown {
  /** Replicas share it: each watches the tasks it runs, so a cancel written on another stops the skill here. */
  readonly spansReplicas = true;
  /** Emits once the subscriber connection is back and resubscribed: records of other replicas may have been missed. */
  readonly resync$: Observable<void>;
  private readonly logger = new Logger('RedisEventBus');
  /** Tags this replica's publications, so that it recognizes their echo. */
  private readonly replicaId = randomUUID();
  /** `<prefix>t:`, followed by the task id. */
  private readonly channelPrefix: string;
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly ownsPublisher: boolean;
  private readonly watched = new Map<string, WatchedTask>();
  private readonly resyncs = new Subject<void>();
  /** Connections in an outage, so that each outage is logged once. */
  private readonly down = new Set<ConnectionName>();
  /** The latest error of each connection in an outage, for health checks. */
  private readonly lastErrors = new Map<ConnectionName, string>();
  /** Watched channels may be missing on the subscriber connection: it dropped, or a SUBSCRIBE failed. */
  private resubscribeWhenReady = false;
  private closed = false;

  constructor(options: RedisEventBusOptions) {
    this.channelPrefix = `${options.prefix ?? 'a2a:'}t:`;
    this.ownsPublisher = !options.client;
    // Auto-pipelining: the records of one batch of events, published in one tick, leave in one write.
    this.publisher = options.client ?? new Redis(options.url, { enableAutoPipelining: true });
    // The bus resubscribes itself rather than ioredis, so that it knows when Redis has confirmed it.
    this.subscriber = this.publisher.duplicate({ autoResubscribe: false, enableAutoPipelining: false });
    this.resync$ = this.resyncs.asObservable();
    this.watchHealth(this.publisher, 'command');
    this.watchHealth(this.subscriber, 'subscriber');
    this.subscriber.on('message', (channel: string, message: string) => this.receive(channel, message));
    this.subscriber.on('close', () => (this.resubscribeWhenReady = true));
    this.subscriber.on('ready', () => {
      if (!this.resubscribeWhenReady) return;
      this.resubscribeWhenReady = false;
      void this.subscribe([...this.watched.keys()]).then((confirmed) => confirmed && this.resyncs.next());
    });
  }

  publish(record: TaskEventRecord): void {
    this.watched.get(record.taskId)?.subject.next(record);
    if (this.closed) return;
    this.publisher.publish(this.channelOf(record.taskId), encodeTaskEvent(this.replicaId, record)).catch((error: Error) => this.lost('command', error));
  }

  watch(taskId: string): Observable<TaskEventRecord> {
    return new Observable<TaskEventRecord>((subscriber) => {
      const task = this.watched.get(taskId) ?? this.startWatching(taskId);
      const subscription = task.subject.subscribe(subscriber);
      return () => {
        subscription.unsubscribe();
        if (!task.subject.observed && this.watched.get(taskId) === task) this.stopWatching(taskId);
      };
    });
  }

  /**
   * Resolves once Redis has confirmed this replica's subscription to the task's channel (at once if it already had):
   * from then on, every record another replica publishes for the task reaches the watchers here. What was published
   * before is the store's to tell, which is why a stream reads its snapshot after subscribing. Rejects when the task
   * has no watcher here.
   */
  ready(taskId: string): Promise<void> {
    return this.watched.get(taskId)?.subscribed ?? Promise.reject(new Error(`Task ${taskId} has no watcher on this replica`));
  }

  /**
   * For health indicators: throws unless both connections are ready and Redis answers PING within 2 s. While Redis is
   * down the bus still delivers this replica's records locally, but other replicas miss them, and this one theirs.
   */
  async healthCheck(): Promise<void> {
    if (this.closed) throw new Error('The Redis event bus is closed');
    for (const [name, connection] of [['command', this.publisher], ['subscriber', this.subscriber]] as const) {
      if (connection.status === 'ready') continue;
      const cause = this.lastErrors.get(name);
      throw new Error(`Redis ${name} connection is ${connection.status}${cause ? ` (${cause})` : ''}`);
    }
    await withinDeadline(this.publisher.ping(), HEALTH_CHECK_TIMEOUT_MS, 'Redis');
  }

  /** Closes the bus's connections (not a `client` passed in); watchers on this replica still get its own records. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.resyncs.complete();
    await Promise.all((this.ownsPublisher ? [this.subscriber, this.publisher] : [this.subscriber]).map(closeConnection));
  }

  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  private startWatching(taskId: string): WatchedTask {
    let confirm!: () => void;
    const subscribed = new Promise<void>((resolve) => (confirm = resolve));
    const task: WatchedTask = { subject: new Subject<TaskEventRecord>(), subscribed, confirm };
    this.watched.set(taskId, task);
    void this.subscribe([taskId]);
    return task;
  }

  private stopWatching(taskId: string): void {
    this.watched.delete(taskId);
    if (this.closed) return;
    this.subscriber.unsubscribe(this.channelOf(taskId)).catch((error: Error) => this.lost('subscriber', error));
  }

  /** Subscribes to the tasks' channels; true once Redis has confirmed them all. */
  private async subscribe(taskIds: string[]): Promise<boolean> {
    if (this.closed) return false;
    // The tasks as they are now: one left and watched again since is confirmed by its own SUBSCRIBE, which comes later.
    const tasks = taskIds.map((taskId) => this.watched.get(taskId)!);
    try {
      if (taskIds.length > 0) await this.subscriber.subscribe(...taskIds.map((taskId) => this.channelOf(taskId)));
    } catch (error) {
      this.resubscribeWhenReady = true;
      this.lost('subscriber', error as Error);
      return false;
    }
    tasks.forEach((task) => task.confirm());
    return true;
  }

  private receive(channel: string, message: string): void {
    const taskId = channel.slice(this.channelPrefix.length);
    // A record can cross the UNSUBSCRIBE of a task that has just lost its last watcher.
    const task = this.watched.get(taskId);
    if (!task) return;
    const decoded = decodeTaskEvent(message, taskId);
    if (!decoded) return this.logger.debug(`Ignored a message on ${channel} that is not a task event record`);
    if (decoded.from !== this.replicaId) task.subject.next(decoded.record);
  }

  private channelOf(taskId: string): string {
    return this.channelPrefix + taskId;
  }

  private watchHealth(connection: Redis, name: ConnectionName): void {
    connection.on('error', (error: Error) => this.lost(name, error));
    connection.on('close', () => this.lost(name));
    connection.on('ready', () => {
      this.lastErrors.delete(name);
      if (this.down.delete(name)) this.logger.log(`Redis ${name} connection is back`);
    });
  }

  private lost(name: ConnectionName, error?: Error): void {
    // A refused dual-stack connect is an AggregateError with an empty message and a code.
    const cause = error && (error.message || (error as NodeJS.ErrnoException).code);
    if (cause) this.lastErrors.set(name, cause);
    if (this.closed || this.down.has(name)) return;
    this.down.add(name);
    const impact = name === 'command' ? 'other replicas miss the records published here' : 'this replica misses the records of others';
    this.logger.warn(`Redis ${name} connection failed (${error?.message ?? 'closed'}): ${impact} until it is back`);
  }
}

/** Creates a {@link RedisEventBus}, for the module's `eventBus` option. */
export function redisEventBus(options: RedisEventBusOptions): RedisEventBus {
  return new RedisEventBus(options);
}

/** QUIT waits for Redis to answer, which during an outage would mean waiting for it to come back. */
async function closeConnection(connection: Redis): Promise<void> {
  if (connection.status !== 'ready') return connection.disconnect();
  await connection.quit().catch(() => connection.disconnect());
}
