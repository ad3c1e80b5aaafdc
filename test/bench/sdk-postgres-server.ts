/**
 * The reference point with a database: sdk-server.ts's server (DefaultRequestHandler, its express handlers and its gRPC
 * service, the same `echo <text>` / `stream <n>` executor) with the SDK's own `DatabaseTaskStore`
 * (`@a2a-js/sdk/server/database`) instead of `InMemoryTaskStore`, on the same PostgreSQL as ours. The orchestrator
 * makes the schema and the SDK's `tasks` table in it with the SDK's migration CLI, and drops them after the server
 * stops (bench-database.ts); this server's connections find the table through `search_path`.
 *
 * The store takes a Kysely instance (`kysely`, an optional peer dependency of the SDK's database entry point, a
 * devDependency here) with the PostgreSQL dialect over a `pg` pool.
 */
import './memory-probe.js';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import { benchDatabaseEnv, searchPathOption } from './bench-database.js';
import { serveSdkBenchAgent } from './sdk-bench.agent.js';
import { SERVER_LAYOUTS } from './server-layouts.js';

const layout = SERVER_LAYOUTS['sdk-pg'];
const database = benchDatabaseEnv(layout.label);

// pg's default pool size (10), as our PostgreSQL store's pool has.
const pool = new pg.Pool({
  connectionString: database.BENCH_POSTGRES_URL,
  options: searchPathOption(database.BENCH_POSTGRES_SCHEMA),
});
// Without a listener an idle connection's error would crash the process; the bench then sees failing requests.
pool.on('error', (error) => console.error(`idle PostgreSQL connection failed: ${error.message}`));
const taskStore = new DatabaseTaskStore(new Kysely({ dialect: new PostgresDialect({ pool }) }));

serveSdkBenchAgent('SDK bench agent (PostgreSQL)', layout, taskStore);
