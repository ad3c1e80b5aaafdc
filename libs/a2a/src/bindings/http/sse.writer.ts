import type { Request, Response } from 'express';
import type { Observable } from 'rxjs';

export interface SseOptions<T> {
  /** Serializes one event into its `data:` payload. */
  frame(event: T): string;
  /** The whole last frame (e.g. `data: …` or `event: error\ndata: …`, no trailing blank line) for an error after the stream started. */
  errorFrame(error: unknown): string;
  /** Answers an error that happens before the first event, as an ordinary (non-SSE) response. */
  errorBeforeStart(error: unknown): void;
  heartbeatMs: number;
}

/**
 * Sends `events$` as Server-Sent Events. Headers go out only with the first event, so an error known up front (task
 * not found, terminal task) is an ordinary error response (§6 #17). A client that disconnects unsubscribes, which
 * releases the stream's watchers but leaves the task running (R49). Comment heartbeats keep proxies from timing out.
 */
export function writeSse<T>(req: Request, res: Response, events$: Observable<T>, options: SseOptions<T>): void {
  let started = false;
  let heartbeat: NodeJS.Timeout | undefined;
  const start = () => {
    started = true;
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    heartbeat = setInterval(() => res.write(': keep-alive\n\n'), options.heartbeatMs);
    heartbeat.unref();
  };
  const stop = () => {
    if (heartbeat) clearInterval(heartbeat);
    heartbeat = undefined;
  };
  const subscription = events$.subscribe({
    next: (event) => {
      if (!started) start();
      res.write(`data: ${options.frame(event)}\n\n`);
    },
    error: (error: unknown) => {
      stop();
      if (!started) return options.errorBeforeStart(error);
      res.end(`${options.errorFrame(error)}\n\n`);
    },
    complete: () => {
      stop();
      if (!started) start();
      res.end();
    },
  });
  const onClose = () => {
    stop();
    subscription.unsubscribe();
  };
  // 'close' fires on the response when the connection ends, whether the client left or we finished.
  res.once('close', onClose);
  req.once('aborted', onClose);
}
