import { BINDING_LABELS, type Binding } from './driver-protocol.js';
import { DEFAULT_SERVERS, SERVER_NAMES, type ServerName } from './server-layouts.js';

/** The kinds of measurement, which BENCH_ONLY can narrow (e.g. to profile one path). */
export const MEASUREMENTS = ['send', 'get', 'stream', 'burst', 'memory', 'push'] as const;
export type Measurement = (typeof MEASUREMENTS)[number];

/** What one `npm run bench` measures, and for how long. */
export interface BenchPlan {
  measurements: Measurement[];
  quick: boolean;
  rounds: number;
  servers: ServerName[];
  bindings: Binding[];
  /** Untimed load on a freshly started server before its first measurement, so the JIT has settled. */
  serverWarmupMs: number;
  /** Untimed load at the start of each measurement, at its own concurrency. */
  warmupMs: number;
  durationMs: number;
  concurrencies: number[];
  chunkCounts: number[];
  /** Streams per streaming measurement at least, however long they take. */
  minStreams: number;
  burst: { streams: number; chunks: number };
  /** Completed tasks at which memory is read, on a fresh server. */
  memoryCheckpoints: number[];
  /** Tasks created before the memory baseline, so that the baseline already has warm code and pools. */
  memoryWarmupTasks: number;
  fillConcurrency: number;
  /** Run our server under --cpu-prof and summarize the profile (adds the profiler's overhead to our column). */
  profile: boolean;
}

function positiveInt(value: string | undefined): number | undefined {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

function bindingsFrom(value: string | undefined): Binding[] {
  const known = Object.keys(BINDING_LABELS) as Binding[];
  if (!value) return known;
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !known.includes(name as Binding));
  if (unknown.length > 0)
    throw new Error(`BENCH_BINDINGS: unknown binding(s) ${unknown.join(', ')}; known: ${known.join(', ')}`);
  return names as Binding[];
}

function measurementsFrom(value: string | undefined): Measurement[] {
  if (!value) return [...MEASUREMENTS];
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !MEASUREMENTS.includes(name as Measurement));
  if (unknown.length > 0)
    throw new Error(`BENCH_ONLY: unknown measurement(s) ${unknown.join(', ')}; known: ${MEASUREMENTS.join(', ')}`);
  return names as Measurement[];
}

/** Unset: every server that needs nothing but Node; the database servers (`ours-pg`, `sdk-pg`) only when named. */
function serversFrom(value: string | undefined): ServerName[] {
  if (!value) return [...DEFAULT_SERVERS];
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !SERVER_NAMES.includes(name as ServerName));
  if (unknown.length > 0)
    throw new Error(`BENCH_SERVERS: unknown server(s) ${unknown.join(', ')}; known: ${SERVER_NAMES.join(', ')}`);
  return names as ServerName[];
}

/**
 * The full plan fits the 15-minute budget on a 2-core machine; BENCH_QUICK=1 is a smoke run of a few seconds per
 * server. BENCH_SERVERS (e.g. `ours,sdk`; `ours-pg,sdk-pg` for the PostgreSQL pair, see bench-database.ts),
 * BENCH_BINDINGS (e.g. `jsonrpc,rest`), BENCH_ONLY (e.g. `send,get`), BENCH_ROUNDS and BENCH_PROFILE=1 adjust either.
 */
export function benchPlan(env: NodeJS.ProcessEnv = process.env): BenchPlan {
  const quick = env.BENCH_QUICK === '1';
  const common = {
    quick,
    measurements: measurementsFrom(env.BENCH_ONLY),
    servers: serversFrom(env.BENCH_SERVERS),
    bindings: bindingsFrom(env.BENCH_BINDINGS),
    concurrencies: [1, 16, 64],
    chunkCounts: [10, 100, 400],
    burst: { streams: 100, chunks: 100 },
    fillConcurrency: 16,
    profile: env.BENCH_PROFILE === '1',
  };
  const plan: BenchPlan = quick
    ? {
        ...common,
        rounds: 1,
        serverWarmupMs: 300,
        warmupMs: 100,
        durationMs: 300,
        minStreams: 2,
        memoryCheckpoints: [1000, 5000],
        memoryWarmupTasks: 200,
      }
    : {
        ...common,
        rounds: 3,
        serverWarmupMs: 5000,
        warmupMs: 300,
        durationMs: 1200,
        minStreams: 5,
        memoryCheckpoints: [10_000, 100_000],
        memoryWarmupTasks: 2000,
      };
  plan.rounds = positiveInt(env.BENCH_ROUNDS) ?? plan.rounds;
  return plan;
}
