import { setTimeout as sleep } from 'node:timers/promises';

/** Waits `ms`, or less if the task is canceled meanwhile; false means canceled: stop and emit nothing more. */
export async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
