import { HealthCheckFailedError } from './health-check-failed.error.js';

/**
 * `work`, or a rejection (HealthCheckFailedError) once `ms` have passed: health checks must answer in bounded time even when a backend hangs
 * (a blackholed host, a stuck server). The abandoned work keeps running; its late outcome is ignored.
 */
export function withinDeadline<T>(work: PromiseLike<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new HealthCheckFailedError(`${what} did not answer within ${ms} ms`)), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
