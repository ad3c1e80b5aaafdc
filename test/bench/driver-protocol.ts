/** The jobs the orchestrator sends to the load driver over IPC, and what comes back. */

export type Binding = 'jsonrpc' | 'rest' | 'grpc';

export const BINDING_LABELS: Record<Binding, string> = { jsonrpc: 'JSON-RPC', rest: 'HTTP+JSON', grpc: 'gRPC' };

/** Where a server under test listens, and the process whose CPU time is charged to it. */
export interface BenchTarget {
  origin: string;
  /** Path of the JSON-RPC endpoint, e.g. `/`. */
  jsonRpcPath: string;
  /** Prefix of the HTTP+JSON routes, `''` for the root. */
  restPrefix: string;
  /** `host:port` of the gRPC listener. */
  grpcAddress: string;
  pid: number;
}

interface JobBase {
  target: BenchTarget;
  binding: Binding;
}

/** Closed-loop unary calls from `concurrency` workers for `durationMs`, after an untimed warm-up. */
export interface UnaryJob extends JobBase {
  kind: 'unary';
  op: 'send' | 'get';
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** The task that `get` reads; created by a `createTask` job. */
  taskId?: string;
}

/** One stream of `chunks` artifact chunks after another, for `durationMs` (at least `minStreams`). */
export interface StreamJob extends JobBase {
  kind: 'stream';
  chunks: number;
  warmupMs: number;
  durationMs: number;
  minStreams: number;
}

/** `streams` streams of `chunks` chunks opened at once; timed until the last one ends. */
export interface BurstJob extends JobBase {
  kind: 'burst';
  streams: number;
  chunks: number;
}

/** `tasks` completed tasks created as fast as `concurrency` workers can, for the memory measurement. */
export interface FillJob extends JobBase {
  kind: 'fill';
  tasks: number;
  concurrency: number;
}

/** One `echo` task whose id later GetTask jobs read. */
export interface CreateTaskJob extends JobBase {
  kind: 'createTask';
}

export type DriverJob = UnaryJob | StreamJob | BurstJob | FillJob | CreateTaskJob;

export interface UnaryResult {
  requests: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  cpuUsPerReq: number;
}

export interface StreamResult {
  streams: number;
  events: number;
  ttfeP50Ms: number;
  eventsPerSec: number;
  cpuUsPerEvent: number;
}

export interface BurstResult {
  totalMs: number;
  events: number;
  cpuUsPerEvent: number;
}

export interface FillResult {
  tasks: number;
  elapsedMs: number;
}

export interface CreateTaskResult {
  taskId: string;
}

export type DriverReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; reason: string };
export interface DriverRequest {
  id: number;
  job: DriverJob;
}
