/**
 * A task store or event bus failed its health check: closed, not connected, or too slow to answer. A driver's own
 * error (a refused connection, say) is passed on as it is.
 */
export class HealthCheckFailedError extends Error {
  override readonly name = 'HealthCheckFailedError';
}
