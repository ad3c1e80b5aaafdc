/**
 * The load driver: a child process of the orchestrator, so that the client's own CPU time never lands on the
 * server's bill. It runs one job at a time, sent over IPC, and reads the server's CPU time itself right around each
 * timed phase.
 */
import { bindingClient, type BindingClient } from './binding-client.js';
import type {
  BurstJob,
  BurstResult,
  CreateTaskJob,
  CreateTaskResult,
  DriverJob,
  DriverReply,
  DriverRequest,
  FillJob,
  FillResult,
  StreamJob,
  StreamResult,
  UnaryJob,
  UnaryResult,
} from './driver-protocol.js';
import { serverCpuTicks } from './server-cpu.js';
import { percentile } from './stats.js';

const clockTicksPerSecond = Number(process.env.BENCH_CLK_TCK);
if (!(clockTicksPerSecond > 0)) throw new Error('BENCH_CLK_TCK must be set by the orchestrator');

function cpuMicros(ticks: number): number {
  return (ticks * 1e6) / clockTicksPerSecond;
}

/** Server CPU time spent while `phase` runs, read right before and right after it. */
async function charged<T>(
  pid: number,
  phase: () => Promise<T>,
): Promise<{ value: T; elapsedMs: number; cpuUs: number }> {
  const cpuBefore = serverCpuTicks(pid);
  const started = performance.now();
  const value = await phase();
  const elapsedMs = performance.now() - started;
  return { value, elapsedMs, cpuUs: cpuMicros(serverCpuTicks(pid) - cpuBefore) };
}

/**
 * `workers` closed loops calling `call` until `durationMs` has passed; the latencies of the calls. The first failure
 * stops every loop and fails the phase.
 */
async function closedLoop(workers: number, durationMs: number, call: () => Promise<unknown>): Promise<number[]> {
  const latencies: number[] = [];
  const deadline = performance.now() + durationMs;
  let failure: unknown;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (failure === undefined && performance.now() < deadline) {
        const started = performance.now();
        try {
          await call();
        } catch (error) {
          failure ??= error;
          return;
        }
        latencies.push(performance.now() - started);
      }
    }),
  );
  if (failure !== undefined) throw failure;
  return latencies;
}

async function withClient<T>(
  job: DriverJob,
  concurrency: number,
  run: (client: BindingClient) => Promise<T>,
): Promise<T> {
  const client = bindingClient(job.target, job.binding, concurrency);
  try {
    return await run(client);
  } finally {
    client.close();
  }
}

function runUnary(job: UnaryJob): Promise<UnaryResult> {
  return withClient(job, job.concurrency, async (client) => {
    const taskId = job.taskId ?? '';
    if (job.op === 'send') await client.sendChecked();
    else await client.getChecked(taskId);
    const call = job.op === 'send' ? () => client.send() : () => client.get(taskId);

    await closedLoop(job.concurrency, job.warmupMs, call);
    const {
      value: latencies,
      elapsedMs,
      cpuUs,
    } = await charged(job.target.pid, () => closedLoop(job.concurrency, job.durationMs, call));
    return {
      requests: latencies.length,
      reqPerSec: (latencies.length * 1000) / elapsedMs,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      cpuUsPerReq: cpuUs / latencies.length,
    };
  });
}

function runStream(job: StreamJob): Promise<StreamResult> {
  return withClient(job, 1, async (client) => {
    const expectedEvents = await client.streamChecked(job.chunks);
    const once = () => client.stream(job.chunks, expectedEvents);
    for (const warmupEnd = performance.now() + job.warmupMs; performance.now() < warmupEnd;) await once();

    const {
      value: firstEventMs,
      elapsedMs,
      cpuUs,
    } = await charged(job.target.pid, async () => {
      const times: number[] = [];
      const deadline = performance.now() + job.durationMs;
      while (times.length < job.minStreams || performance.now() < deadline) times.push(await once());
      return times;
    });
    const events = firstEventMs.length * expectedEvents;
    return {
      streams: firstEventMs.length,
      events,
      ttfeP50Ms: percentile(firstEventMs, 50),
      eventsPerSec: (events * 1000) / elapsedMs,
      cpuUsPerEvent: cpuUs / events,
    };
  });
}

function runBurst(job: BurstJob): Promise<BurstResult> {
  return withClient(job, job.streams, async (client) => {
    const expectedEvents = await client.streamChecked(job.chunks);
    await client.connect(job.streams);
    const { elapsedMs, cpuUs } = await charged(job.target.pid, () =>
      Promise.all(Array.from({ length: job.streams }, () => client.stream(job.chunks, expectedEvents))),
    );
    const events = job.streams * expectedEvents;
    return { totalMs: elapsedMs, events, cpuUsPerEvent: cpuUs / events };
  });
}

function runFill(job: FillJob): Promise<FillResult> {
  return withClient(job, job.concurrency, async (client) => {
    let issued = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: job.concurrency }, async () => {
        while (issued < job.tasks) {
          issued++;
          await client.send();
        }
      }),
    );
    return { tasks: job.tasks, elapsedMs: performance.now() - started };
  });
}

function runCreateTask(job: CreateTaskJob): Promise<CreateTaskResult> {
  return withClient(job, 1, async (client) => ({ taskId: await client.sendChecked() }));
}

function run(job: DriverJob): Promise<unknown> {
  switch (job.kind) {
    case 'unary':
      return runUnary(job);
    case 'stream':
      return runStream(job);
    case 'burst':
      return runBurst(job);
    case 'fill':
      return runFill(job);
    case 'createTask':
      return runCreateTask(job);
  }
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

process.on('message', (request: DriverRequest) => {
  run(request.job).then(
    (result) => process.send?.({ id: request.id, ok: true, result } satisfies DriverReply),
    (error: unknown) => process.send?.({ id: request.id, ok: false, reason: reasonOf(error) } satisfies DriverReply),
  );
});
