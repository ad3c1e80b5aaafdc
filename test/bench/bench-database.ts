/**
 * The databases of the bench's PostgreSQL servers (`database` in server-layouts.ts). The orchestrator prepares one
 * before each start of such a server, hands it over through the environment and drops it after the server stops: each
 * start begins with empty tables, as the in-memory servers begin with empty stores, and nothing outlives the run.
 *
 * - ours (our-postgres-server.ts): a schema name and a Redis key prefix of its own. The conformance agent creates and
 *   migrates the schema at boot (`A2A_POSTGRES_SCHEMA`, `migrate: true`); its event bus publishes under the prefix.
 * - the SDK (sdk-postgres-server.ts): a schema of its own, created here, with the SDK's `tasks` table in it, made by the
 *   SDK's own migration CLI (`a2a-db upgrade --store tasks`), which its docs have an operator run before the server
 *   starts. The SDK names its table without a schema, so its connections find it through `search_path`.
 *
 * PostgreSQL: `A2A_TEST_POSTGRES_URL` (default postgres://postgres@127.0.0.1:5432/test, as the test suites); Redis:
 * `A2A_TEST_REDIS_URL` (default redis://127.0.0.1:6379).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';

export const BENCH_POSTGRES_URL = process.env.A2A_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const BENCH_REDIS_URL = process.env.A2A_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** What the orchestrator hands a database server, in its environment. */
export interface BenchDatabaseEnv {
  /** The database, with `application_name` set to the schema name so that its sessions can be told apart. */
  BENCH_POSTGRES_URL: string;
  BENCH_POSTGRES_SCHEMA: string;
  /** Ours only: the event bus. */
  BENCH_REDIS_URL?: string;
  BENCH_REDIS_PREFIX?: string;
}

export interface BenchDatabase {
  readonly env: BenchDatabaseEnv;
  /** Drops the schema (and any Redis key under the prefix); never throws, a leftover is reported on stderr. */
  drop(): Promise<void>;
}

const CONNECT_TIMEOUT_MS = 5_000;
const MIGRATION_TIMEOUT_MS = 60_000;

/** The environment of a database server, read by its wrapper; throws when the orchestrator did not prepare one. */
export function benchDatabaseEnv(server: string, env: NodeJS.ProcessEnv = process.env): BenchDatabaseEnv {
  const {
    BENCH_POSTGRES_URL: url,
    BENCH_POSTGRES_SCHEMA: schema,
    BENCH_REDIS_URL: redisUrl,
    BENCH_REDIS_PREFIX: redisPrefix,
  } = env;
  if (!url || !schema)
    throw new Error(
      `${server} needs BENCH_POSTGRES_URL and BENCH_POSTGRES_SCHEMA: run-bench.ts prepares them (bench-database.ts)`,
    );
  return {
    BENCH_POSTGRES_URL: url,
    BENCH_POSTGRES_SCHEMA: schema,
    BENCH_REDIS_URL: redisUrl,
    BENCH_REDIS_PREFIX: redisPrefix,
  };
}

/** The URL with query parameters added (pg reads `application_name` and `options` from it). */
export function withUrlParams(url: string, params: Record<string, string>): string {
  const query = Object.entries(params)
    .map(([key, value]) => `${key}=${encodeURIComponent(value)}`)
    .join('&');
  return `${url}${url.includes('?') ? '&' : '?'}${query}`;
}

/** `options` that make a connection's unqualified table names resolve in `schema` only. */
export function searchPathOption(schema: string): string {
  return `-c search_path=${schema}`;
}

async function withClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: BENCH_POSTGRES_URL, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw new Error(
      `PostgreSQL at ${BENCH_POSTGRES_URL} (A2A_TEST_POSTGRES_URL) is unreachable: ${(error as Error).message || String(error)}`,
      { cause: error },
    );
  }
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function redisClient(): Redis {
  return new Redis(BENCH_REDIS_URL, {
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    connectTimeout: CONNECT_TIMEOUT_MS,
  });
}

async function withRedis<T>(work: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = redisClient();
  let cause: Error | undefined;
  redis.on('error', (error: Error) => (cause = error));
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(
      `Redis at ${BENCH_REDIS_URL} (A2A_TEST_REDIS_URL) is unreachable: ${(cause ?? (error as Error)).message}`,
      { cause: error },
    );
  }
  try {
    return await work(redis);
  } finally {
    redis.disconnect();
  }
}

const quoted = (schema: string) => `"${schema}"`;

async function dropSchema(schema: string): Promise<void> {
  await withClient((client) => client.query(`DROP SCHEMA IF EXISTS ${quoted(schema)} CASCADE`));
}

async function deleteRedisKeys(prefix: string): Promise<void> {
  await withRedis(async (redis) => {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  });
}

function reportLeftover(what: string, error: unknown): void {
  process.stderr.write(`bench: could not drop ${what}: ${error instanceof Error ? error.message : String(error)}\n`);
}

/** The SDK's migration CLI (its `a2a-db` bin), found next to the package's entry point. */
function sdkMigrationCli(): string {
  return join(dirname(createRequire(import.meta.url).resolve('@a2a-js/sdk')), 'cli', 'a2a_db.js');
}

/** Runs `a2a-db upgrade --store tasks` against `schema`; a failure carries the CLI's own message. */
async function migrateSdkTasks(schema: string): Promise<void> {
  const url = withUrlParams(BENCH_POSTGRES_URL, {
    options: searchPathOption(schema),
    application_name: `${schema}_migrate`,
  });
  try {
    await promisify(execFile)(process.execPath, [sdkMigrationCli(), 'upgrade', '--store', 'tasks', '--url', url], {
      timeout: MIGRATION_TIMEOUT_MS,
    });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    const message =
      stderr
        .split('\n')
        .filter((line) => line.trim() !== '')
        .slice(0, 2)
        .join(' ') || (error as Error).message;
    throw new Error(`the SDK's migration (a2a-db upgrade --store tasks) failed: ${message}`, { cause: error });
  }
}

/**
 * A fresh database for one start of a server of the given kind. Fails (with what is missing) when PostgreSQL or Redis
 * does not answer or the SDK's migration fails; anything already made is dropped again first.
 */
export async function prepareBenchDatabase(kind: 'ours' | 'sdk'): Promise<BenchDatabase> {
  const id = randomBytes(6).toString('hex');
  const schema = `a2a_bench_${kind}_${id}`;
  const url = withUrlParams(BENCH_POSTGRES_URL, { application_name: schema });
  if (kind === 'ours') {
    const prefix = `a2a:bench_${id}:`;
    // Only reachability here: the agent makes its schema itself, at boot.
    await withClient((client) => client.query('SELECT 1'));
    await withRedis((redis) => redis.ping());
    return {
      env: { BENCH_POSTGRES_URL: url, BENCH_POSTGRES_SCHEMA: schema, BENCH_REDIS_URL, BENCH_REDIS_PREFIX: prefix },
      drop: async () => {
        await dropSchema(schema).catch((error) => reportLeftover(`schema ${schema}`, error));
        await deleteRedisKeys(prefix).catch((error) => reportLeftover(`Redis keys ${prefix}*`, error));
      },
    };
  }
  await withClient((client) => client.query(`CREATE SCHEMA ${quoted(schema)}`));
  const drop = () => dropSchema(schema).catch((error) => reportLeftover(`schema ${schema}`, error));
  try {
    await migrateSdkTasks(schema);
  } catch (error) {
    await drop();
    throw error;
  }
  return { env: { BENCH_POSTGRES_URL: url, BENCH_POSTGRES_SCHEMA: schema }, drop };
}
