import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Logger, type INestApplication } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import pg from 'pg';
import { ConformanceModule } from '../../../apps/conformance-agent/src/conformance.module.js';
import { InMemoryTaskStore, InProcessEventBus, type EventBus, type TaskStore } from '../../../libs/a2a/src/store.js';
import { PostgresTaskStore } from '../../../libs/a2a/src/postgres.js';
import { A2aHealthIndicator } from '../../../libs/a2a/src/terminus.js';
import { startTestApp } from '../../fixtures/test-app.js';

function indicator(store: TaskStore, bus: EventBus = new InProcessEventBus()): A2aHealthIndicator {
  return new A2aHealthIndicator(new HealthIndicatorService(), store, bus);
}

/** The in-memory store with a health check of the test's choosing. */
function storeWith(healthCheck: () => Promise<void>): TaskStore {
  return Object.assign(new InMemoryTaskStore(), { healthCheck });
}

describe('A2aHealthIndicator', () => {
  it('is up with the in-memory store and the in-process bus, naming their kinds', async () => {
    expect(await indicator(new InMemoryTaskStore()).isHealthy()).toEqual({
      a2a: {
        status: 'up',
        store: { kind: 'InMemoryTaskStore', status: 'up' },
        bus: { kind: 'InProcessEventBus', status: 'up' },
      },
    });
  });

  it('reports under the key it is given', async () => {
    expect(Object.keys(await indicator(new InMemoryTaskStore()).isHealthy('agent'))).toEqual(['agent']);
  });

  it("is down when the store's health check fails, with the store's error; the bus stays up", async () => {
    const result = await indicator(storeWith(() => Promise.reject(new Error('disk full')))).isHealthy();
    expect(result.a2a).toEqual({
      status: 'down',
      store: { kind: 'InMemoryTaskStore', status: 'down', error: 'disk full' },
      bus: { kind: 'InProcessEventBus', status: 'up' },
    });
  });

  it('is down when the bus fails, even by throwing synchronously', async () => {
    const bus = Object.assign(new InProcessEventBus(), {
      healthCheck: (): Promise<void> => {
        throw new Error('no broker');
      },
    });
    expect((await indicator(new InMemoryTaskStore(), bus).isHealthy()).a2a).toMatchObject({
      status: 'down',
      bus: { kind: 'InProcessEventBus', status: 'down', error: 'no broker' },
    });
  });

  it('never hangs: a check that does not answer within timeoutMs is down', async () => {
    const started = Date.now();
    const result = await indicator(storeWith(() => new Promise<void>(() => undefined))).isHealthy('a2a', {
      timeoutMs: 50,
    });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(result.a2a).toMatchObject({
      status: 'down',
      store: { status: 'down', error: 'The task store (InMemoryTaskStore) did not answer within 50 ms' },
    });
  });

  it("calls a custom store 'custom' when it has no class of its own", async () => {
    const store = { healthCheck: () => Promise.resolve() } as unknown as TaskStore;
    expect((await indicator(store).isHealthy()).a2a).toMatchObject({
      status: 'up',
      store: { kind: 'custom', status: 'up' },
    });
  });
});

describe('GET /health of the conformance agent', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await startTestApp(ConformanceModule.forRoot({ baseUrl: 'http://127.0.0.1', push: false })));
  });
  afterAll(() => app.close());

  it('answers 200 with the store and the bus up', async () => {
    const response = await fetch(`${url}/health`);
    expect(response.status).toBe(200);
    const a2a = {
      status: 'up',
      store: { kind: 'InMemoryTaskStore', status: 'up' },
      bus: { kind: 'InProcessEventBus', status: 'up' },
    };
    expect(await response.json()).toEqual({ status: 'ok', info: { a2a }, error: {}, details: { a2a } });
  });

  it('leaves the A2A routes at the root as they were', async () => {
    const response = await fetch(`${url}/tasks/nope`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { status: 'NOT_FOUND' } });
  });
});

describe('GET /health of the conformance agent on an unreachable PostgreSQL', () => {
  let app: INestApplication;
  let url: string;
  let pool: pg.Pool;

  beforeAll(async () => {
    // Nothing listens on port 1: every connection is refused at once.
    pool = new pg.Pool({ host: '127.0.0.1', port: 1, user: 'nobody', database: 'none' });
    pool.on('error', () => undefined);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const taskStore = new PostgresTaskStore(pool, { retention: false });
    ({ app, url } = await startTestApp(
      ConformanceModule.forRoot({ baseUrl: 'http://127.0.0.1', push: false, taskStore }),
    ));
  });
  afterAll(async () => {
    await app.close();
    await pool.end();
    jest.restoreAllMocks();
  });

  it('answers 503 with the store down and why', async () => {
    const response = await fetch(`${url}/health`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as { status: string; error: { a2a: { store: { error: string } } } };
    expect(body).toMatchObject({
      status: 'error',
      error: {
        a2a: {
          status: 'down',
          store: { kind: 'PostgresTaskStore', status: 'down' },
          bus: { kind: 'InProcessEventBus', status: 'up' },
        },
      },
    });
    expect(body.error.a2a.store.error).toMatch(/ECONNREFUSED/);
  });
});
