import { Logger, type OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Observable, Subject } from 'rxjs';
import type { EventBus, TaskEventRecord } from '../bus/event-bus.js';
import { withinDeadline } from '../health/within-deadline.js';
import { HealthCheckFailedError } from '../health/health-check-failed.error.js';
import { decodeTaskEvents, encodeTaskEvents } from './task-event.message.js';

export type RedisEventBusOptions = ({ url: string; client?: undefined } | { client: Redis; url?: undefined }) & {
  /** Starts every channel name, so that several agents (or test runs) can share one Redis. Default `a2a:`. */
  prefix?: string;
};

type ConnectionName = 'command' | 'subscriber';

/** How long `healthCheck()` waits for Redis to answer PING. */
const HEALTH_CHECK_TIMEOUT_MS = 2_000;

interface WatchedTask {
  readonly subject: Subject<TaskEventRecord>;
  /** Watchers that listen to every replica's records of the task: the task's channel is subscribed while there are any. */
  listening: number;
  /** While `listening`: resolves once Redis has confirmed the subscription to the task's channel. */
  subscribed?: Promise<void>;
  confirm?: () => void;
}

/**
 * An {@link EventBus} shared by replicas through Redis Pub/Sub: one channel per task, `<prefix>t:<taskId>`, subscribed
 * once per replica while the task has watchers there that listen to every replica; and one per replica,
 * `<prefix>r:<replicaId>`, subscribed once, for the records another replica sends it (`alsoTo`). Nothing is stored
 * in Redis; records are JSON.
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
  /** `<prefix>r:`, followed by a replica id given to `join`. */
  private readonly replicaChannelPrefix: string;
  private readonly joined = new Set<string>();
  /** Records published in this tick, by channel, not yet sent. */
  private outgoing = new Map<string, TaskEventRecord[]>();
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
    this.replicaChannelPrefix = `${options.prefix ?? 'a2a:'}r:`;
    this.ownsPublisher = !options.client;
    this.publisher = options.client ?? new Redis(options.url);
    // The bus resubscribes itself rather than ioredis, so that it knows when Redis has confirmed it.
    this.subscriber = this.publisher.duplicate({ autoResubscribe: false });
    this.resync$ = this.resyncs.asObservable();
    this.watchHealth(this.publisher, 'command');
    this.watchHealth(this.subscriber, 'subscriber');
    this.subscriber.on('message', (channel: string, message: string) => this.receive(channel, message));
    this.subscriber.on('close', () => (this.resubscribeWhenReady = true));
    this.subscriber.on('ready', () => {
      if (!this.resubscribeWhenReady) return;
      this.resubscribeWhenReady = false;
      const listened = [...this.watched].filter(([, task]) => task.listening > 0).map(([taskId]) => taskId);
      void this.subscribe(listened, [...this.joined]).then((confirmed) => confirmed && this.resyncs.next());
    });
  }

  publish(record: TaskEventRecord, alsoTo?: string): void {
    this.watched.get(record.taskId)?.subject.next(record);
    if (this.closed) return;
    this.send(this.channelOf(record.taskId), record);
    if (alsoTo !== undefined) this.send(this.replicaChannelPrefix + alsoTo, record);
  }

  watch(taskId: string, options?: { replicaOnly?: boolean }): Observable<TaskEventRecord> {
    const listens = options?.replicaOnly !== true;
    return new Observable<TaskEventRecord>((subscriber) => {
      const task = this.watched.get(taskId) ?? this.track(taskId);
      if (listens && task.listening++ === 0) this.startListening(taskId, task);
      const subscription = task.subject.subscribe(subscriber);
      return () => {
        subscription.unsubscribe();
        if (this.watched.get(taskId) !== task) return;
        if (listens && --task.listening === 0) this.stopListening(taskId, task);
        if (!task.subject.observed) this.watched.delete(taskId);
      };
    });
  }

  /** Records sent to `replicaId` (`publish`'s `alsoTo`) reach this replica's watchers of their task from now on. */
  join(replicaId: string): void {
    if (this.joined.has(replicaId)) return;
    this.joined.add(replicaId);
    void this.subscribe([], [replicaId]);
  }

  /**
   * Resolves once Redis has confirmed this replica's subscription to the task's channel (at once if it already had):
   * from then on, every record another replica publishes for the task reaches the watchers here. What was published
   * before is the store's to tell, which is why a stream reads its snapshot after subscribing. At once when the task's
   * watchers here watch only this replica; rejects when it has none.
   */
  ready(taskId: string): Promise<void> {
    const task = this.watched.get(taskId);
    if (!task) return Promise.reject(new Error(`Task ${taskId} has no watcher on this replica`));
    return task.subscribed ?? Promise.resolve();
  }

  /**
   * For health indicators: throws unless both connections are ready and Redis answers PING within 2 s. While Redis is
   * down the bus still delivers this replica's records locally, but other replicas miss them, and this one theirs.
   */
  async healthCheck(): Promise<void> {
    if (this.closed) throw new HealthCheckFailedError('The Redis event bus is closed');
    for (const [name, connection] of [
      ['command', this.publisher],
      ['subscriber', this.subscriber],
    ] as const) {
      if (connection.status === 'ready') continue;
      const cause = this.lastErrors.get(name);
      throw new HealthCheckFailedError(`Redis ${name} connection is ${connection.status}${cause ? ` (${cause})` : ''}`);
    }
    await withinDeadline(this.publisher.ping(), HEALTH_CHECK_TIMEOUT_MS, 'Redis');
  }

  /** Closes the bus's connections (not a `client` passed in); watchers on this replica still get its own records. */
  async close(): Promise<void> {
    if (this.closed) return;
    // What was published in this tick still goes out, ahead of QUIT.
    this.flush();
    this.closed = true;
    this.resyncs.complete();
    await Promise.all(
      (this.ownsPublisher ? [this.subscriber, this.publisher] : [this.subscriber]).map(closeConnection),
    );
  }

  /** Closes the bus when the Nest app shuts down. */
  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  /** Queues `record` for `channel`: what is published in one tick leaves as one message per channel (one PUBLISH). */
  private send(channel: string, record: TaskEventRecord): void {
    const queued = this.outgoing.get(channel);
    if (queued) return void queued.push(record);
    this.outgoing.set(channel, [record]);
    if (this.outgoing.size === 1) queueMicrotask(() => this.flush());
  }

  private flush(): void {
    const outgoing = this.outgoing;
    this.outgoing = new Map();
    if (this.closed) return;
    for (const [channel, records] of outgoing) {
      this.publisher
        .publish(channel, encodeTaskEvents(this.replicaId, records))
        .catch((error: Error) => this.lost('command', error));
    }
  }

  private track(taskId: string): WatchedTask {
    const task: WatchedTask = { subject: new Subject<TaskEventRecord>(), listening: 0 };
    this.watched.set(taskId, task);
    return task;
  }

  private startListening(taskId: string, task: WatchedTask): void {
    task.subscribed = new Promise<void>((resolve) => (task.confirm = resolve));
    void this.subscribe([taskId], []);
  }

  private stopListening(taskId: string, task: WatchedTask): void {
    task.subscribed = task.confirm = undefined;
    if (this.closed) return;
    this.subscriber.unsubscribe(this.channelOf(taskId)).catch((error: Error) => this.lost('subscriber', error));
  }

  /** Subscribes to the tasks' and replicas' channels; true once Redis has confirmed them all. */
  private async subscribe(taskIds: string[], replicaIds: string[]): Promise<boolean> {
    if (this.closed) return false;
    // The subscriptions as they are now: one dropped and made again since is confirmed by its own SUBSCRIBE, later.
    const confirms = taskIds.map((taskId) => this.watched.get(taskId)?.confirm);
    const channels = [
      ...taskIds.map((taskId) => this.channelOf(taskId)),
      ...replicaIds.map((replicaId) => this.replicaChannelPrefix + replicaId),
    ];
    try {
      if (channels.length > 0) await this.subscriber.subscribe(...channels);
    } catch (error) {
      this.resubscribeWhenReady = true;
      this.lost('subscriber', error as Error);
      return false;
    }
    confirms.forEach((confirm) => confirm?.());
    return true;
  }

  private receive(channel: string, message: string): void {
    const toReplica = channel.startsWith(this.replicaChannelPrefix);
    const decoded = decodeTaskEvents(message, toReplica ? undefined : channel.slice(this.channelPrefix.length));
    if (!decoded) return this.logger.debug(`Ignored a message on ${channel} that is not a list of task event records`);
    if (decoded.from === this.replicaId) return;
    // A record can cross the UNSUBSCRIBE of a task that has just lost its last watcher.
    for (const record of decoded.records) this.watched.get(record.taskId)?.subject.next(record);
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
    const impact =
      name === 'command'
        ? 'other replicas miss the records published here'
        : 'this replica misses the records of others';
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
