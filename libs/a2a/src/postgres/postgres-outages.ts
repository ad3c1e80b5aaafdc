import { Logger } from '@nestjs/common';
import type { Pool } from 'pg';
import { A2aError } from '../errors/a2a.error.js';

/* PostgreSQL going away (a restart, a failover, a network cut) as the stores meet it: a wait for callers, never a crash. */

/** What the PostgreSQL stores run their statements on. */
export type Queryable = Pick<Pool, 'query'>;

/** What a caller hears while PostgreSQL cannot be reached: a failure to retry (spec §3.3.2), not an internal error. */
export const STORE_UNREACHABLE = 'The task store cannot be reached now; retry later';

/** Node's codes for a connection that could not be made, or was lost. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** SQLSTATEs of a server that drops or refuses connections: class 08, shutdowns and restarts, too many connections. */
const UNREACHABLE_STATES = /^(08...|57P0[123]|53300)$/;
/** pg's and pg-pool's own errors for a lost connection, a connect or query timeout: they carry no code. */
const PG_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error)/;

/** Whether `error` says PostgreSQL cannot be reached now, rather than that it refused a statement. */
export function isUnreachable(error: unknown): boolean {
  // Not `instanceof Error`: node's own errors (a refused connect) may come from another realm (a test runner's VM).
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') return NETWORK_CODES.has(code) || UNREACHABLE_STATES.test(code);
  return typeof message === 'string' && PG_MESSAGES.test(message);
}

/**
 * `pool.query`, whose failures for want of a database are `Unavailable` (HTTP 503, gRPC UNAVAILABLE), which clients
 * retry, instead of internal errors: a database restart or failover is a wait for callers, not a fault of the agent.
 * The log says when PostgreSQL stops answering, with pg's reason, and when it answers again: once each.
 */
export function unreachableAsUnavailable(pool: Pool, logger = new Logger('PostgresTaskStore')): Queryable {
  let unreachable = false;
  const answered = <T>(result: T): T => {
    if (unreachable) {
      unreachable = false;
      logger.log('PostgreSQL answers again');
    }
    return result;
  };
  const failed = (error: unknown): never => {
    if (!isUnreachable(error)) throw error;
    if (!unreachable) {
      unreachable = true;
      logger.warn(
        `PostgreSQL cannot be reached (${(error as { message: string }).message}): calls that need it get Unavailable until it answers`,
      );
    }
    throw new A2aError('Unavailable', STORE_UNREACHABLE);
  };
  const query = (...args: unknown[]) =>
    (pool.query as (...args: unknown[]) => Promise<unknown>).apply(pool, args).then(answered, failed);
  return { query: query as Pool['query'] };
}

/**
 * pg's pool emits `error` when an idle connection fails (a database restart), and with no listener that crashes the
 * process: the store listens, and logs it, on a pool that has no listener of its own.
 */
export function logIdleConnectionErrors(pool: Pool, logger = new Logger('PostgresTaskStore')): void {
  if (pool.listenerCount('error') > 0) return;
  pool.on('error', (error) => logger.warn(`Idle PostgreSQL connection failed: ${error.message}`));
}
