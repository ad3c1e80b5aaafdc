import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { firstValueFrom, type Subscription } from 'rxjs';
import type { TaskEventRecord } from '../../../libs/a2a/src/bus/event-bus.js';
import { RedisEventBus } from '../../../libs/a2a/src/redis/redis-event.bus.js';
import { freePort } from '../../fixtures/grpc-json.client.js';
import { tcpRelay } from '../../fixtures/tcp-relay.js';
import { TEST_REDIS_URL, deleteTestRedisKeys, testRedisAvailable, testRedisPrefix } from '../../fixtures/test-redis.js';
import { describeEventBusContract, taskEventRecord } from './event-bus.contract.js';

const describeWithRedis = (await testRedisAvailable()) ? describe : describe.skip;

/** Two buses with the same prefix stand for two replicas of one agent. */
describeWithRedis('RedisEventBus', () => {
  const prefix = testRedisPrefix();
  const channelOf = (taskId: string, channelPrefix = prefix) => `${channelPrefix}t:${taskId}`;
  let admin: Redis;
  let buses: RedisEventBus[] = [];
  let watches: Subscription[] = [];

  function replica(options: { prefix?: string; client?: Redis; url?: string } = {}): RedisEventBus {
    const at = options.client ? { client: options.client } : { url: options.url ?? TEST_REDIS_URL };
    const bus = new RedisEventBus({ ...at, prefix: options.prefix ?? prefix });
    buses.push(bus);
    return bus;
  }

  /** What `bus` delivers for the task from now on. */
  function collect(bus: RedisEventBus, taskId: string): TaskEventRecord[] {
    const seen: TaskEventRecord[] = [];
    watches.push(bus.watch(taskId).subscribe((record) => seen.push(record)));
    return seen;
  }

  const seqs = (records: TaskEventRecord[]) => records.map((record) => record.seq);

  beforeAll(() => {
    admin = new Redis(TEST_REDIS_URL);
  });

  afterEach(async () => {
    watches.forEach((watch) => watch.unsubscribe());
    await Promise.all(buses.map((bus) => bus.close()));
    watches = [];
    buses = [];
    jest.restoreAllMocks();
  });

  afterAll(async () => {
    // Pub/Sub leaves nothing behind once every bus is closed: no channel, no key.
    await waitFor(
      async () => (await admin.pubsub('CHANNELS', `${prefix}*`)).length === 0,
      'the channels to be released',
    );
    expect(await deleteTestRedisKeys(admin, prefix)).toBe(0);
    await admin.quit();
  });

  describeEventBusContract(
    'RedisEventBus',
    () => replica(),
    (bus) => (bus as RedisEventBus).close(),
  );

  it('carries a record published on one replica to the watchers of another, whole and in order', async () => {
    const [a, b] = [replica(), replica()];
    const seen = collect(b, 't-1');
    await b.ready('t-1');
    const published = [1, 2, 3].map((seq) => taskEventRecord('t-1', seq));
    published.push(taskEventRecord('t-1', 3, { event: undefined, settled: true }));
    published.forEach((record) => a.publish(record));
    await waitFor(() => seen.length === published.length, 'the records on B');
    expect(seen).toEqual(published);
  });

  it("gives the publishing replica's watchers its records synchronously and once: the echo from Redis is dropped", async () => {
    const [a, b] = [replica(), replica()];
    const onA = collect(a, 't-1');
    const onB = collect(b, 't-1');
    await Promise.all([a.ready('t-1'), b.ready('t-1')]);
    a.publish(taskEventRecord('t-1', 1));
    expect(seqs(onA)).toEqual([1]);
    await waitFor(() => onB.length === 1, 'B to receive record 1');
    // Redis relays B's publication after A's, so A's echo (had it been kept) would arrive before record 2.
    b.publish(taskEventRecord('t-1', 2));
    await waitFor(() => onA.length >= 2, 'A to receive record 2');
    expect(seqs(onA)).toEqual([1, 2]);
    expect(seqs(onB)).toEqual([1, 2]);
  });

  it('subscribes to a task once per replica however many watch it, and unsubscribes when the last one leaves', async () => {
    const subscribe = jest.spyOn(Redis.prototype, 'subscribe');
    const unsubscribe = jest.spyOn(Redis.prototype, 'unsubscribe');
    const channel = channelOf('t-ref');
    const callsFor = (spy: typeof subscribe | typeof unsubscribe) =>
      spy.mock.calls.filter((args) => args.includes(channel)).length;
    const b = replica();
    const first = b.watch('t-ref').subscribe();
    const second = b.watch('t-ref').subscribe();
    await b.ready('t-ref');
    expect(callsFor(subscribe)).toBe(1);
    expect(await admin.pubsub('NUMSUB', channel)).toEqual([channel, 1]);
    expect(await admin.pubsub('CHANNELS', `${prefix}*`)).toEqual([channel]);

    first.unsubscribe();
    expect(callsFor(unsubscribe)).toBe(0);
    second.unsubscribe();
    expect(callsFor(unsubscribe)).toBe(1);
    await waitFor(
      async () => (await admin.pubsub('CHANNELS', `${prefix}*`)).length === 0,
      'the channel to be unsubscribed',
    );
  });

  it('watches a task on this replica alone without subscribing to it; a record sent to the replica (alsoTo) still reaches it', async () => {
    const subscribe = jest.spyOn(Redis.prototype, 'subscribe');
    const [a, b] = [replica(), replica()];
    b.join('replica-b');
    await waitFor(async () => (await admin.pubsub('NUMSUB', `${prefix}r:replica-b`))[1] === 1, "B's replica channel");
    const onB: TaskEventRecord[] = [];
    watches.push(b.watch('t-only', { replicaOnly: true }).subscribe((record) => onB.push(record)));
    await b.ready('t-only');
    expect(subscribe.mock.calls.filter((args) => args.includes(channelOf('t-only')))).toEqual([]);

    b.publish(taskEventRecord('t-only', 1));
    a.publish(taskEventRecord('t-only', 2));
    a.publish(taskEventRecord('t-only', 3, { final: true }), 'replica-b');
    await waitFor(() => onB.length === 2, 'the record sent to B');
    // Its own record at once; of A's, only the one sent to B.
    expect(seqs(onB)).toEqual([1, 3]);
  });

  it('delivers a record sent to a replica also to its watchers that listen to every replica, who drop the repeat by seq', async () => {
    const [a, b] = [replica(), replica()];
    b.join('replica-b');
    const onB = collect(b, 't-both');
    await b.ready('t-both');
    await waitFor(async () => (await admin.pubsub('NUMSUB', `${prefix}r:replica-b`))[1] === 1, "B's replica channel");
    a.publish(taskEventRecord('t-both', 1), 'replica-b');
    await waitFor(() => onB.length === 2, 'both copies on B');
    expect(seqs(onB)).toEqual([1, 1]);
  });

  it('keeps agents with different prefixes apart', async () => {
    const otherPrefix = testRedisPrefix();
    const [a, b] = [replica(), replica()];
    const [otherA, otherB] = [replica({ prefix: otherPrefix }), replica({ prefix: otherPrefix })];
    const same = collect(b, 't-1');
    const other = collect(otherB, 't-1');
    await Promise.all([b.ready('t-1'), otherB.ready('t-1')]);
    a.publish(taskEventRecord('t-1', 1));
    await waitFor(() => same.length === 1, 'B to receive record 1');
    // Published after A's record was relayed, so the other agent's watcher would have had A's record first.
    otherA.publish(taskEventRecord('t-1', 99));
    await waitFor(() => other.length === 1, 'the other agent to receive its own record');
    expect(seqs(other)).toEqual([99]);
    expect(seqs(same)).toEqual([1]);
  });

  it('sends the records published in one tick as one message per channel', async () => {
    const publish = jest.spyOn(Redis.prototype, 'publish');
    const [a, b] = [replica(), replica()];
    const seen = collect(b, 't-tick');
    await b.ready('t-tick');
    for (const seq of [1, 2, 3]) a.publish(taskEventRecord('t-tick', seq));
    await waitFor(() => seen.length === 3, 'the three records on B');
    expect(seqs(seen)).toEqual([1, 2, 3]);
    expect(publish.mock.calls.filter(([channel]) => channel === channelOf('t-tick'))).toHaveLength(1);
  });

  it('carries 1,000 records between replicas in publish order', async () => {
    const [a, b] = [replica(), replica()];
    const seen = collect(b, 't-many');
    await b.ready('t-many');
    const sent = Array.from({ length: 1000 }, (_, i) => i + 1);
    sent.forEach((seq) => a.publish(taskEventRecord('t-many', seq)));
    await waitFor(() => seen.length === sent.length, '1,000 records on B');
    expect(seqs(seen)).toEqual(sent);
  });

  it('ignores, at debug level, messages on a task channel that are not records of that task', async () => {
    const debug = jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
    const b = replica();
    const seen: TaskEventRecord[] = [];
    let failed = false;
    watches.push(b.watch('t-1').subscribe({ next: (record) => seen.push(record), error: () => (failed = true) }));
    await b.ready('t-1');
    const channel = channelOf('t-1');
    const malformed = [
      'not JSON',
      JSON.stringify(taskEventRecord('t-1', 1)),
      JSON.stringify({ from: 'elsewhere', record: taskEventRecord('t-1', 1) }),
      JSON.stringify({ from: 'elsewhere', records: [] }),
      JSON.stringify({ from: 'elsewhere', records: [taskEventRecord('t-2', 1)] }),
      // One bad record spoils the message: its good neighbours are not delivered without it.
      JSON.stringify({ from: 'elsewhere', records: [taskEventRecord('t-1', 1), taskEventRecord('t-2', 2)] }),
      JSON.stringify({ from: 'elsewhere', records: [{ ...taskEventRecord('t-1', 1), seq: '1' }] }),
      JSON.stringify({
        from: 'elsewhere',
        records: [taskEventRecord('t-1', 1, { event: { text: 'not an event' } as never })],
      }),
    ];
    for (const message of malformed) await admin.publish(channel, message);
    const valid = [taskEventRecord('t-1', 2), taskEventRecord('t-1', 3)];
    await admin.publish(channel, JSON.stringify({ from: 'elsewhere', records: valid }));
    await waitFor(() => seen.length === 2, 'the well-formed records');
    expect({ seen, failed }).toEqual({ seen: valid, failed: false });
    expect(debug).toHaveBeenCalledTimes(malformed.length);
  });

  it('recovers when its subscriber connection is killed: it resubscribes, then emits resync$', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const connectionName = `a2a-it-${randomBytes(4).toString('hex')}`;
    const client = new Redis(TEST_REDIS_URL, { connectionName });
    try {
      const [a, b] = [replica(), replica({ client })];
      const seen = collect(b, 't-1');
      await b.ready('t-1');
      a.publish(taskEventRecord('t-1', 1));
      await waitFor(() => seen.length === 1, 'record 1 on B');

      const resynced = firstValueFrom(b.resync$);
      expect(await killSubscriberConnection(admin, connectionName)).toBe(1);
      await resynced;
      a.publish(taskEventRecord('t-1', 2));
      await waitFor(() => seen.length === 2, 'record 2 on B after the reconnect');
      expect(seqs(seen)).toEqual([1, 2]);
      expect(warn).toHaveBeenCalledTimes(1);

      await b.close();
      // A client passed in stays the caller's.
      expect(await client.ping()).toBe('PONG');
    } finally {
      await client.quit();
    }
  });

  it('subscribes the watchers it got while Redis was unreachable once it is reachable, then emits resync$', async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const url = new URL(TEST_REDIS_URL);
    url.hostname = '127.0.0.1';
    url.port = String(await freePort());
    const late = replica({ url: url.href });
    const seen = collect(late, 't-1');
    const resynced = firstValueFrom(late.resync$);
    await sleep(200); // a few failed connection attempts
    const relay = await tcpRelay(TEST_REDIS_URL, 6379, Number(url.port));
    try {
      await resynced;
      await late.ready('t-1');
      replica().publish(taskEventRecord('t-1', 1));
      await waitFor(() => seen.length === 1, 'the record published once Redis was reachable');
    } finally {
      await late.close();
      await relay.cut();
    }
  });

  it('keeps delivering locally while Redis is unreachable, logs each connection once, and closes at once', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    // ioredis leaves a 2 s timer behind when it disconnects a socket that never connected; this one is shorter.
    const client = new Redis('redis://127.0.0.1:1', { disconnectTimeout: 10 });
    const bus = replica({ client });
    const seen = collect(bus, 't-1');
    expect(() => bus.publish(taskEventRecord('t-1', 1))).not.toThrow();
    await sleep(300); // several reconnection attempts
    bus.publish(taskEventRecord('t-1', 2));
    expect(seqs(seen)).toEqual([1, 2]);
    expect(warn.mock.calls.map(([message]) => String(message).split(' ').slice(0, 2).join(' ')).sort()).toEqual([
      'Redis command',
      'Redis subscriber',
    ]);
    await bus.close();
    client.disconnect();
  });
});

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Kills the connections named `name` that are in Pub/Sub mode (the bus's subscriber); returns how many. */
async function killSubscriberConnection(admin: Redis, name: string): Promise<number> {
  const clients = (await admin.client('LIST')) as string;
  const ids = clients
    .split('\n')
    .map((line) => Object.fromEntries(line.split(' ').map((field) => field.split('=', 2))))
    .filter((fields) => fields.name === name && Number(fields.sub) > 0)
    .map((fields) => fields.id);
  for (const id of ids) await admin.client('KILL', 'ID', id);
  return ids.length;
}
