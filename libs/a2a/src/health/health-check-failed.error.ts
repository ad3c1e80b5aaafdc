/** A task store or event bus failed its health check: closed, not connected, or too slow to answer. */
export class HealthCheckFailedError extends Error {
  override readonly name = 'HealthCheckFailedError';
}
