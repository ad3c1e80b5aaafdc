import type { IncomingHttpHeaders } from 'node:http2';

/** What grpc-js 1.14 accepts as a `grpc-timeout` (server-interceptors.js, DEADLINE_REGEX), and each unit in ms. */
const GRPC_TIMEOUT = /(\d{1,8})\s*([HMSmun])/;
const UNIT_MS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000001 };
/** The longest delay a timer can take (2^31 − 1 ms, about 24.8 days). */
const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * The timeout a call's `grpc-timeout` header asks for, in whole ms; undefined when it is absent or malformed, in which
 * case the call runs without a deadline. Up to 99,999,999 hours may be asked: beyond what a timer can wait, the
 * deadline is as far as a timer goes (grpc-js would wrap the number round and expire such a call at once).
 */
export function grpcTimeoutMs(headers: IncomingHttpHeaders): number | undefined {
  const header = headers['grpc-timeout'];
  const match = typeof header === 'string' ? GRPC_TIMEOUT.exec(header) : null;
  return match ? Math.min(Math.floor(Number(match[1]) * UNIT_MS[match[2]]), MAX_TIMEOUT_MS) : undefined;
}

/**
 * Drops a `grpc-timeout` grpc-js would answer with INTERNAL (malformed) or would wrap round (past a timer's reach), so
 * that the calls grpc-js serves run without a deadline then, as the direct path's do.
 */
export function dropUnusableGrpcTimeout(headers: IncomingHttpHeaders): void {
  if (headers['grpc-timeout'] === undefined) return;
  const ms = grpcTimeoutMs(headers);
  if (ms === undefined || ms === MAX_TIMEOUT_MS) delete headers['grpc-timeout'];
}
