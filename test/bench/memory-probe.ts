/**
 * Bench-only instrumentation, imported first by each server wrapper and never by the library: over the IPC channel
 * the orchestrator opened, `memory` runs a full GC and answers with `process.memoryUsage()`, and `exit` ends the
 * process normally, so that `--cpu-prof` gets to write its profile.
 */
export type ProbeRequest = { type: 'memory' } | { type: 'exit' };

export interface MemoryReply {
  type: 'memory';
  rss: number;
  heapUsed: number;
}

const collect = (globalThis as { gc?: () => void }).gc;

process.on('message', (request: ProbeRequest) => {
  if (request.type === 'exit') process.exit(0);
  if (!collect) throw new Error('start the server with --expose-gc');
  // Twice, a macrotask apart: the first pass runs finalizers and weak callbacks that free more for the second.
  collect();
  setImmediate(() => {
    collect();
    const { rss, heapUsed } = process.memoryUsage();
    process.send?.({ type: 'memory', rss, heapUsed } satisfies MemoryReply);
  });
});
