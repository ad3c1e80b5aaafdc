/**
 * Our server with its tasks in PostgreSQL and its task events through Redis: the conformance agent as replicas run it
 * (CONFORMANCE-AGENT.md, "Replicas"), with `A2A_POSTGRES_URL`/`A2A_POSTGRES_SCHEMA` (a schema of this start's own,
 * migrated at boot) and `A2A_REDIS_URL`/`A2A_REDIS_PREFIX` (a key prefix of its own). The orchestrator prepares both
 * and drops them after the server stops (bench-database.ts).
 */
import { benchDatabaseEnv } from './bench-database.js';

const database = benchDatabaseEnv('ours+PostgreSQL+Redis');
if (!database.BENCH_REDIS_URL || !database.BENCH_REDIS_PREFIX)
  throw new Error('ours+PostgreSQL+Redis needs BENCH_REDIS_URL and BENCH_REDIS_PREFIX');
process.env.A2A_POSTGRES_URL = database.BENCH_POSTGRES_URL;
process.env.A2A_POSTGRES_SCHEMA = database.BENCH_POSTGRES_SCHEMA;
process.env.A2A_REDIS_URL = database.BENCH_REDIS_URL;
process.env.A2A_REDIS_PREFIX = database.BENCH_REDIS_PREFIX;
await import('./our-server.js');
