import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import { InMemoryTaskStore, InProcessEventBus, type EventBus, type TaskStore } from '../../../libs/a2a/src/store.js';
import { PostgresTaskStore } from '../../../libs/a2a/src/postgres.js';
import { RedisEventBus, redisEventBus } from '../../../libs/a2a/src/redis.js';
import { A2aHealthIndicator } from '../../../libs/a2a/src/terminus.js';
import { TEST_POSTGRES_URL, postgresReachable } from '../../fixtures/postgres.fixture.js';
import { TEST_REDIS_URL, testRedisAvailable, testRedisPrefix } from '../../fixtures/test-redis.js';

const withPostgres = (await postgresReachable('the PostgreSQL health checks')) ? describe : describe.skip;
const withRedis = (await testRedisAvailable()) ? describe : describe.skip;

function indicator(store: TaskStore, bus: EventBus): A2aHealthIndicator {
  return new A2aHealthIndicator(new HealthIndicatorService(), store, bus);
}

/** A TCP server that accepts connections and never says a word: a database or broker that hangs. */
async function silentServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      sockets.forEach((socket) => socket.destroy());
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

beforeEach(() => {
  // The Redis bus and the lease keeper warn about unreachable backends: expected here.
  jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
});
afterEach(() => jest.restoreAllMocks());

describe('PostgresTaskStore.healthCheck', () => {
  withPostgres('with PostgreSQL at A2A_TEST_POSTGRES_URL', () => {
    let pool: pg.Pool;
    beforeAll(() => {
      pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 2 });
    });
    afterAll(() => pool.end());

    it('resolves, and the indicator is up (SELECT 1 needs no schema)', async () => {
      const store = new PostgresTaskStore(pool, { schema: 'a2a_health_never_migrated', retention: false });
      await expect(store.healthCheck()).resolves.toBeUndefined();
      expect((await indicator(store, new InProcessEventBus()).isHealthy()).a2a).toEqual({
        status: 'up',
        store: { kind: 'PostgresTaskStore', status: 'up' },
        bus: { kind: 'InProcessEventBus', status: 'up' },
      });
    });

    it('throws once the store has ended its pool', async () => {
      const own = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 1 });
      const store = new PostgresTaskStore(own, { retention: false, endPoolOnClose: true });
      await store.healthCheck();
      await store.close();
      await expect(store.healthCheck()).rejects.toThrow(/pool/i);
    });
  });

  it('throws at once when PostgreSQL refuses connections, and the indicator says so', async () => {
    const pool = new pg.Pool({ host: '127.0.0.1', port: 1, user: 'nobody', database: 'none' });
    try {
      const store = new PostgresTaskStore(pool, { retention: false });
      const started = Date.now();
      await expect(store.healthCheck()).rejects.toThrow(/ECONNREFUSED/);
      expect(Date.now() - started).toBeLessThan(1_000);
      const { a2a } = await indicator(store, new InProcessEventBus()).isHealthy();
      expect(a2a).toMatchObject({
        status: 'down',
        store: { kind: 'PostgresTaskStore', status: 'down', error: expect.stringMatching(/ECONNREFUSED/) },
      });
    } finally {
      await pool.end();
    }
  });

  it('gives up after 2 s on a server that never answers; the indicator sooner, with its own timeout', async () => {
    const silent = await silentServer();
    const pool = new pg.Pool({ host: '127.0.0.1', port: silent.port, user: 'nobody', database: 'none' });
    pool.on('error', () => undefined);
    try {
      const store = new PostgresTaskStore(pool, { retention: false });
      const started = Date.now();
      const { a2a } = await indicator(store, new InProcessEventBus()).isHealthy('a2a', { timeoutMs: 200 });
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(a2a).toMatchObject({
        status: 'down',
        store: { status: 'down', error: 'The task store (PostgresTaskStore) did not answer within 200 ms' },
      });
      await expect(store.healthCheck()).rejects.toThrow('PostgreSQL did not answer within 2000 ms');
      expect(Date.now() - started).toBeLessThan(4_000);
    } finally {
      await silent.close();
      await pool.end().catch(() => undefined);
    }
  });
});

describe('RedisEventBus.healthCheck', () => {
  withRedis('with Redis at A2A_TEST_REDIS_URL', () => {
    it('resolves once both connections are ready, and the indicator is up', async () => {
      const bus = redisEventBus({ url: TEST_REDIS_URL, prefix: testRedisPrefix() });
      try {
        await waitFor(
          async () =>
            bus.healthCheck().then(
              () => true,
              () => false,
            ),
          'the bus to connect',
        );
        expect((await indicator(new InMemoryTaskStore(), bus).isHealthy()).a2a).toEqual({
          status: 'up',
          store: { kind: 'InMemoryTaskStore', status: 'up' },
          bus: { kind: 'RedisEventBus', status: 'up' },
        });
      } finally {
        await bus.close();
      }
      await expect(bus.healthCheck()).rejects.toThrow('The Redis event bus is closed');
    });
  });

  it('throws at once while Redis is unreachable, with the connection error', async () => {
    // As redisEventBus({ url: 'redis://127.0.0.1:1' }), with a client of ours: ioredis leaves a 2 s timer behind when
    // it disconnects a socket that never connected, and this one's is shorter.
    const client = new Redis('redis://127.0.0.1:1', { disconnectTimeout: 10 });
    const bus = redisEventBus({ client });
    try {
      await expect(bus.healthCheck()).rejects.toThrow(/^Redis command connection is (connecting|reconnecting|close)/);
      await sleep(200); // a few refused attempts
      const started = Date.now();
      const { a2a } = await indicator(new InMemoryTaskStore(), bus).isHealthy();
      expect(Date.now() - started).toBeLessThan(500);
      expect(a2a).toMatchObject({
        status: 'down',
        store: { kind: 'InMemoryTaskStore', status: 'up' },
        bus: {
          kind: 'RedisEventBus',
          status: 'down',
          error: expect.stringMatching(/^Redis command connection is \w+ \(.*ECONNREFUSED.*\)$/),
        },
      });
    } finally {
      await bus.close();
      client.disconnect();
    }
  });

  it('is down while a server that never answers keeps the connections from becoming ready', async () => {
    const silent = await silentServer();
    const client = new Redis(`redis://127.0.0.1:${silent.port}`, { disconnectTimeout: 10 });
    const bus = new RedisEventBus({ client });
    try {
      await sleep(100);
      await expect(bus.healthCheck()).rejects.toThrow(/^Redis command connection is (connect|connecting)$/);
    } finally {
      await bus.close();
      client.disconnect();
      await silent.close();
    }
  });
});

async function waitFor(condition: () => Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await sleep(10);
  }
}
