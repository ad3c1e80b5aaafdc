import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DriverJob, DriverReply, DriverRequest } from './driver-protocol.js';

/** A measurement's value, or why there is none. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; reason: string };

/** The orchestrator's handle on the load-driver process; restarts it when a job overruns its bound. */
export class LoadDriverClient {
  private child: ChildProcess | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, (reply: DriverReply) => void>();

  constructor(private readonly clockTicksPerSecond: number) {}

  async run<T>(job: DriverJob, timeoutMs: number): Promise<Outcome<T>> {
    const child = this.ensureStarted();
    const id = this.nextId++;
    const reply = await new Promise<DriverReply>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ id, ok: false, reason: `the driver did not finish within ${Math.round(timeoutMs / 1000)} s` });
        this.stop();
      }, timeoutMs);
      this.pending.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      child.send({ id, job } satisfies DriverRequest);
    });
    return reply.ok ? { ok: true, value: reply.result as T } : { ok: false, reason: reply.reason };
  }

  stop(): void {
    this.child?.kill('SIGKILL');
    this.child = undefined;
  }

  private ensureStarted(): ChildProcess {
    if (this.child) return this.child;
    const child = fork(fileURLToPath(new URL('load-driver.js', import.meta.url)), [], {
      env: { ...process.env, BENCH_CLK_TCK: String(this.clockTicksPerSecond) },
      execArgv: [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.on('message', (reply: DriverReply) => {
      const resolve = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      resolve?.(reply);
    });
    child.on('exit', (code, signal) => {
      for (const [id, resolve] of this.pending)
        resolve({ id, ok: false, reason: `the driver exited (${signal ?? `code ${code}`})` });
      this.pending.clear();
      if (this.child === child) this.child = undefined;
    });
    this.child = child;
    return child;
  }
}
