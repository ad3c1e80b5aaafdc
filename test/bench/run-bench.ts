/**
 * `npm run bench`: our conformance agent, an @a2a-js/sdk server with the same behaviour and a precomputed node:http
 * floor, started one after another under the same conditions and driven from a separate load-driver process on
 * loopback. Prints one markdown table of medians over rounds (server order rotated between rounds) to stdout, and
 * when both PostgreSQL servers ran, a table of theirs against each other; progress goes to stderr.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  burstKey,
  memoryKey,
  metricRows,
  streamFlatnessKey,
  streamKey,
  unaryKey,
  type MetricRow,
  type UnaryOp,
} from './bench-metrics.js';
import { benchPlan, type BenchPlan, type Measurement } from './bench-plan.js';
import { issueBenchCredentials } from './bench-credentials.js';
import { prepareBenchDatabase, type BenchDatabase } from './bench-database.js';
import { BenchResults } from './bench-results.js';
import { summarizeCpuProfiles } from './cpu-profile-summary.js';
import { LoadDriverClient, type Outcome } from './driver-client.js';
import {
  BINDING_LABELS,
  type Binding,
  type BurstResult,
  type CreateTaskResult,
  type DriverJob,
  type FillResult,
  type StreamResult,
  type UnaryResult,
} from './driver-protocol.js';
import { DATABASE_PAIR, OUR_SERVERS, SERVER_LAYOUTS, type ServerName } from './server-layouts.js';
import { ServerProcess } from './server-process.js';
import { measurePushDeliveries, pushDeliveriesTable } from './push-deliveries.js';

/** Slack on top of a job's own duration before the driver is presumed stuck (each call is bounded at 15 s). */
const JOB_SLACK_MS = 30_000;

const plan = benchPlan();
// Before any server or driver is forked: they read the credentials from the environment they inherit.
await issueBenchCredentials(process.env);
const clockTicksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
const driver = new LoadDriverClient(clockTicksPerSecond);
const results = new BenchResults();
const rows = metricRows(plan);
const roundKeys = rows.filter((row) => row.measurement !== 'memory').map((row) => row.key);
const measures = (kind: Measurement) => plan.measurements.includes(kind);
const benchStarted = performance.now();
const profileDir = plan.profile
  ? fileURLToPath(
      new URL(`../../bench/cpu-profiles/${new Date().toISOString().replace(/[:.]/g, '-')}/`, import.meta.url),
    )
  : undefined;

function log(message: string): void {
  const seconds = ((performance.now() - benchStarted) / 1000).toFixed(0).padStart(4);
  process.stderr.write(`[${seconds} s] ${message}\n`);
}

function rotate<T>(list: readonly T[], by: number): T[] {
  const k = by % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

/** Runs a job; a failure names the server's crash when that is what happened. */
async function run<T>(server: ServerProcess, job: DriverJob, boundMs: number): Promise<Outcome<T>> {
  const outcome = await driver.run<T>(job, boundMs + JOB_SLACK_MS);
  if (!outcome.ok && server.failure) return { ok: false, reason: `server ${server.failure}` };
  return outcome;
}

function recordUnary(
  name: ServerName,
  op: UnaryOp,
  binding: Binding,
  concurrency: number,
  outcome: Outcome<UnaryResult>,
): void {
  const key = (metric: 'rps' | 'p50' | 'p99' | 'cpu') => unaryKey(op, binding, concurrency, metric);
  if (!outcome.ok) {
    results.fail([key('rps'), key('p50'), key('p99'), key('cpu')], name, outcome.reason);
    log(`  ${op} ${BINDING_LABELS[binding]} c=${concurrency}: n/a (${outcome.reason})`);
    return;
  }
  const r = outcome.value;
  results.record(key('rps'), name, r.reqPerSec);
  results.record(key('p50'), name, r.p50Ms);
  results.record(key('p99'), name, r.p99Ms);
  results.record(key('cpu'), name, r.cpuUsPerReq);
  log(
    `  ${op} ${BINDING_LABELS[binding]} c=${concurrency}: ${r.reqPerSec.toFixed(0)} req/s, p50 ${r.p50Ms.toFixed(2)} ms, ` +
      `p99 ${r.p99Ms.toFixed(2)} ms, ${r.cpuUsPerReq.toFixed(0)} µs CPU/req (${r.requests} req)`,
  );
}

async function measureUnary(server: ServerProcess, op: UnaryOp, binding: Binding, taskId?: string): Promise<void> {
  for (const concurrency of plan.concurrencies) {
    const job: DriverJob = {
      kind: 'unary',
      target: server.target,
      binding,
      op,
      concurrency,
      warmupMs: plan.warmupMs,
      durationMs: plan.durationMs,
      taskId,
    };
    recordUnary(
      server.name,
      op,
      binding,
      concurrency,
      await run<UnaryResult>(server, job, plan.warmupMs + plan.durationMs),
    );
  }
}

async function measureStreams(server: ServerProcess, binding: Binding): Promise<void> {
  const cpuByChunks = new Map<number, number>();
  for (const chunks of plan.chunkCounts) {
    const key = (metric: 'ttfe' | 'eps' | 'cpu') => streamKey(binding, chunks, metric);
    const job: DriverJob = {
      kind: 'stream',
      target: server.target,
      binding,
      chunks,
      warmupMs: plan.warmupMs,
      durationMs: plan.durationMs,
      minStreams: plan.minStreams,
    };
    const outcome = await run<StreamResult>(server, job, plan.warmupMs + plan.durationMs);
    if (!outcome.ok) {
      results.fail([key('ttfe'), key('eps'), key('cpu')], server.name, outcome.reason);
      log(`  stream ${BINDING_LABELS[binding]} ${chunks} chunks: n/a (${outcome.reason})`);
      continue;
    }
    const r = outcome.value;
    results.record(key('ttfe'), server.name, r.ttfeP50Ms);
    results.record(key('eps'), server.name, r.eventsPerSec);
    results.record(key('cpu'), server.name, r.cpuUsPerEvent);
    cpuByChunks.set(chunks, r.cpuUsPerEvent);
    log(
      `  stream ${BINDING_LABELS[binding]} ${chunks} chunks: first event ${r.ttfeP50Ms.toFixed(2)} ms, ` +
        `${r.eventsPerSec.toFixed(0)} events/s, ${r.cpuUsPerEvent.toFixed(1)} µs CPU/event (${r.streams} streams)`,
    );
  }
  const small = cpuByChunks.get(Math.min(...plan.chunkCounts));
  const large = cpuByChunks.get(Math.max(...plan.chunkCounts));
  if (small !== undefined && large !== undefined)
    results.record(streamFlatnessKey(binding), server.name, large / small);
  else results.fail([streamFlatnessKey(binding)], server.name, 'a streaming measurement it needs failed');
}

async function measureBurst(server: ServerProcess, binding: Binding): Promise<void> {
  const job: DriverJob = { kind: 'burst', target: server.target, binding, ...plan.burst };
  const outcome = await run<BurstResult>(server, job, 60_000);
  if (!outcome.ok) {
    results.fail([burstKey(binding, 'ms'), burstKey(binding, 'cpu')], server.name, outcome.reason);
    log(`  burst ${BINDING_LABELS[binding]}: n/a (${outcome.reason})`);
    return;
  }
  results.record(burstKey(binding, 'ms'), server.name, outcome.value.totalMs);
  results.record(burstKey(binding, 'cpu'), server.name, outcome.value.cpuUsPerEvent);
  log(
    `  burst ${BINDING_LABELS[binding]}: all done in ${outcome.value.totalMs.toFixed(0)} ms, ${outcome.value.cpuUsPerEvent.toFixed(1)} µs CPU/event`,
  );
}

/** The database of each running server that has one, dropped when it stops. */
const databases = new Map<ServerProcess, BenchDatabase>();

/** Starts a server; one with a database gets a fresh one (bench-database.ts), through the environment it inherits. */
async function startServer(name: ServerName, extraNodeArgs: string[] = []): Promise<Outcome<ServerProcess>> {
  const kind = SERVER_LAYOUTS[name].database;
  let database: BenchDatabase | undefined;
  const saved = new Map<string, string | undefined>();
  try {
    if (kind) {
      database = await prepareBenchDatabase(kind);
      for (const [key, value] of Object.entries(database.env)) {
        saved.set(key, process.env[key]);
        if (value !== undefined) process.env[key] = value;
      }
    }
    const server = await ServerProcess.start(name, extraNodeArgs);
    if (database) databases.set(server, database);
    return { ok: true, value: server };
  } catch (error) {
    await database?.drop();
    return { ok: false, reason: `server did not start: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    // The child has its copy: the next server (and a restarted driver) must not inherit this one's database.
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

async function stopServer(server: ServerProcess): Promise<void> {
  await server.stop();
  await databases.get(server)?.drop();
  databases.delete(server);
}

/** The planned bindings this server serves; gRPC cells of a server without a gRPC listener fail with the reason. */
async function servedBindings(server: ServerProcess): Promise<Binding[]> {
  if (!plan.bindings.includes('grpc') || (await server.servesGrpc())) return plan.bindings;
  const reason = 'no gRPC listener on GRPC_PORT: this server does not serve the gRPC binding (yet)';
  results.fail(
    rows.filter((row) => row.binding === 'grpc').map((row) => row.key),
    server.name,
    reason,
  );
  log(`  gRPC: n/a (${reason})`);
  return plan.bindings.filter((binding) => binding !== 'grpc');
}

async function measureRound(name: ServerName): Promise<void> {
  const ours = OUR_SERVERS.includes(name) || name === DATABASE_PAIR.ours;
  const profileArgs = ours && profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const started = await startServer(name, profileArgs);
  if (!started.ok) {
    results.fail(roundKeys, name, started.reason);
    log(`  ${started.reason}`);
    return;
  }
  const server = started.value;
  try {
    const bindings = await servedBindings(server);
    // Every binding measured gets its share, or the first row of a binding pays the compilation of its path; the one
    // measured first is warmed last.
    const warmed: Binding[] = bindings.length > 0 ? bindings : ['jsonrpc'];
    for (const binding of [...warmed].reverse()) {
      const durationMs = Math.round(plan.serverWarmupMs / warmed.length);
      const warmup: DriverJob = {
        kind: 'unary',
        target: server.target,
        binding,
        op: 'send',
        concurrency: 16,
        warmupMs: 0,
        durationMs,
      };
      await run(server, warmup, durationMs);
    }
    // The stream path warms up too, or the first stream measurement pays its compilation (seen: +50-65 % CPU/event
    // for whichever binding's 10-chunk row came first).
    if ((measures('stream') || measures('burst')) && bindings.length > 0) {
      const streams: DriverJob = {
        kind: 'stream',
        target: server.target,
        binding: bindings[0],
        chunks: 10,
        warmupMs: 0,
        durationMs: plan.serverWarmupMs,
        minStreams: 1,
      };
      await run(server, streams, plan.serverWarmupMs);
    }
    if (measures('send')) for (const binding of bindings) await measureUnary(server, 'send', binding);
    for (const binding of measures('get') ? bindings : []) {
      const created = await run<CreateTaskResult>(server, { kind: 'createTask', target: server.target, binding }, 0);
      if (created.ok) await measureUnary(server, 'get', binding, created.value.taskId);
      else {
        const keys = plan.concurrencies.flatMap((c) =>
          (['rps', 'p50', 'p99', 'cpu'] as const).map((m) => unaryKey('get', binding, c, m)),
        );
        results.fail(keys, name, `could not create the task to read: ${created.reason}`);
        log(`  get ${BINDING_LABELS[binding]}: n/a (${created.reason})`);
      }
    }
    if (measures('stream')) for (const binding of bindings) await measureStreams(server, binding);
    if (measures('burst')) for (const binding of bindings) await measureBurst(server, binding);
  } finally {
    await stopServer(server);
  }
}

/** Below this rate a memory fill gives up, which keeps the whole run bounded even against a very slow server. */
const MIN_FILL_TASKS_PER_SECOND = 500;

async function fill(server: ServerProcess, tasks: number): Promise<Outcome<FillResult>> {
  const job: DriverJob = {
    kind: 'fill',
    target: server.target,
    binding: 'jsonrpc',
    tasks,
    concurrency: plan.fillConcurrency,
  };
  return run<FillResult>(server, job, (tasks * 1000) / MIN_FILL_TASKS_PER_SECOND);
}

/** RSS and heap-after-GC growth per completed task, on a fresh server, from a baseline taken after a warm-up. */
async function measureMemory(name: ServerName): Promise<void> {
  const keys = plan.memoryCheckpoints.flatMap((tasks) => [memoryKey('rss', tasks), memoryKey('heap', tasks)]);
  const started = await startServer(name);
  if (!started.ok) {
    results.fail(keys, name, started.reason);
    log(`  ${started.reason}`);
    return;
  }
  const server = started.value;
  try {
    const warmup = await fill(server, plan.memoryWarmupTasks);
    if (!warmup.ok) throw new Error(warmup.reason);
    const baseline = await server.memory();
    let created = 0;
    for (const checkpoint of plan.memoryCheckpoints) {
      const filled = await fill(server, checkpoint - created);
      if (!filled.ok) throw new Error(filled.reason);
      created = checkpoint;
      const now = await server.memory();
      const rssPerTask = (now.rss - baseline.rss) / checkpoint;
      const heapPerTask = (now.heapUsed - baseline.heapUsed) / checkpoint;
      results.record(memoryKey('rss', checkpoint), name, rssPerTask);
      results.record(memoryKey('heap', checkpoint), name, heapPerTask);
      const rate = (filled.value.tasks * 1000) / filled.value.elapsedMs;
      log(
        `  ${checkpoint} tasks: RSS +${rssPerTask.toFixed(0)} B/task, heap +${heapPerTask.toFixed(0)} B/task (filled at ${rate.toFixed(0)} tasks/s)`,
      );
    }
  } catch (error) {
    const reason = server.failure ? `server ${server.failure}` : error instanceof Error ? error.message : String(error);
    for (const key of keys) if (results.value(key, name) === undefined) results.fail([key], name, reason);
    log(`  memory: n/a (${reason})`);
  } finally {
    await stopServer(server);
  }
}

function machine(): string {
  const cpuInfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = /model name\s*:\s*(.*)/.exec(cpuInfo)?.[1] ?? os.cpus()[0]?.model ?? 'unknown CPU';
  const gb = (os.totalmem() / 2 ** 30).toFixed(0);
  return `${model}, ${os.availableParallelism()} cores, ${gb} GB RAM, ${os.type()} ${os.release()}, Node ${process.version}`;
}

/**
 * Our PostgreSQL server against the SDK's on the same PostgreSQL: throughput and server CPU of both, the ratio, and
 * the target of server CPU ≤ ⅓ of the SDK's, judged on the rows the main table judges (unary at c=16 and c=64 on the
 * HTTP bindings, streamed events at 100 chunks; docs/performance.md, "The targets the table judges").
 */
function databasePairTable(metricRowsShown: readonly MetricRow[]): string {
  const { ours, sdk } = DATABASE_PAIR;
  const throughput = /\.(rps|eps)$/;
  const cpu = /\.cpu$/;
  // With the floor in the run: what share of the SDK's CPU a server that only answers precomputed bytes costs, the
  // part of a cell no server can go below on this machine.
  const floor = plan.servers.includes('floor');
  const lines = [
    `| measurement | ${SERVER_LAYOUTS[ours].label} | ${SERVER_LAYOUTS[sdk].label} | ratio | target: server CPU ≤ ⅓ |${floor ? ' floor ÷ SDK |' : ''}`,
    `| --- | ---: | ---: | ---: | ---: |${floor ? ' ---: |' : ''}`,
  ];
  const shown = (value: number | undefined) =>
    value === undefined ? 'n/a' : value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
  for (const row of metricRowsShown.filter((r) => throughput.test(r.key) || cpu.test(r.key))) {
    const mine = results.value(row.key, ours);
    const theirs = results.value(row.key, sdk);
    const ratio = mine !== undefined && theirs !== undefined && theirs > 0 ? mine / theirs : undefined;
    const judged = cpu.test(row.key) && row.target !== undefined;
    const target = !judged ? '' : ratio === undefined ? '?' : ratio <= 1 / 3 ? '✓' : '✗';
    const floorValue = floor && cpu.test(row.key) ? results.value(row.key, 'floor') : undefined;
    const floorShare =
      floorValue !== undefined && theirs !== undefined && theirs > 0 ? (floorValue / theirs).toFixed(2) : '';
    lines.push(
      `| ${row.label} | ${shown(mine)} | ${shown(theirs)} | ${ratio === undefined ? '—' : ratio.toFixed(2)} | ${target} |${floor ? ` ${floorShare} |` : ''}`,
    );
  }
  return lines.join('\n');
}

function describePlan(p: BenchPlan): string {
  return (
    `${p.quick ? 'QUICK mode (smoke run; numbers are noisy). ' : ''}` +
    `${p.rounds} round(s), medians; server order rotated between rounds; each server freshly started per round. ` +
    `Unary: closed loop, ${p.durationMs} ms per cell after ${p.warmupMs} ms warm-up. ` +
    `Streams: one after another, at least ${p.minStreams} / ${p.durationMs} ms per cell. ` +
    `Server CPU = utime+stime of the server process from /proc/<pid>/stat (CLK_TCK ${clockTicksPerSecond}). ` +
    `Memory: fresh server, baseline after ${p.memoryWarmupTasks} tasks and a full GC.`
  );
}

async function main(): Promise<void> {
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  log(
    `servers: ${plan.servers.map((s) => SERVER_LAYOUTS[s].label).join(', ')}; ${plan.quick ? 'quick' : 'full'} plan, ${plan.rounds} round(s)`,
  );
  for (let round = 0; round < plan.rounds && roundKeys.length > 0; round++) {
    for (const name of rotate(plan.servers, round)) {
      log(`round ${round + 1}/${plan.rounds}: ${SERVER_LAYOUTS[name].label}`);
      await measureRound(name);
    }
  }
  // The floor stores nothing, so there is no memory per task to measure.
  for (const name of measures('memory') ? plan.servers.filter((s) => s !== 'floor') : []) {
    log(`memory: ${SERVER_LAYOUTS[name].label}`);
    await measureMemory(name);
  }
  // Push deliveries: our agent only (the SDK's sender has no retries or outbox to compare with).
  const push = measures('push') && plan.servers.includes('ours') ? await measurePushDeliveries(log) : undefined;
  driver.stop();

  const minutes = ((performance.now() - benchStarted) / 60_000).toFixed(1);
  const output = [
    `## A2A server benchmark (${new Date().toISOString().slice(0, 10)})`,
    '',
    `Machine: ${machine()}.`,
    '',
    describePlan(plan),
    `Wall time: ${minutes} min.${plan.profile ? ' Our server ran under --cpu-prof: its column includes the profiler overhead.' : ''}`,
    '',
    results.toMarkdown(rows, plan.servers),
  ];
  if (plan.servers.includes(DATABASE_PAIR.ours) && plan.servers.includes(DATABASE_PAIR.sdk)) {
    const title = `${SERVER_LAYOUTS[DATABASE_PAIR.ours].label} against ${SERVER_LAYOUTS[DATABASE_PAIR.sdk].label} (same PostgreSQL)`;
    output.push('', `### ${title}`, '', databasePairTable(rows));
  }
  if (push) output.push('', '### Push deliveries to a loopback receiver', '', pushDeliveriesTable(push));
  if (profileDir)
    output.push('', `### CPU profile of our server (${profileDir})`, '', summarizeCpuProfiles(profileDir));
  process.stdout.write(`${output.join('\n')}\n`);
}

await main();
