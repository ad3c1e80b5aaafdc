import type { LookupAddress } from 'node:dns';
import { InvalidPushOptionsError } from './push.errors.js';
import { PushMessages } from './push.messages.js';

/**
 * Where push notifications may go and how they are sent (option `push`). Empty by default: https only, to public
 * unicast addresses only (spec §13.2).
 */
export interface PushDeliveryOptions {
  /** Allow plain http webhooks to any host. Default false. Hosts exempted by `allowedHosts`/`allowedCidrs` may use http anyway. */
  readonly allowHttp?: boolean;
  /**
   * Host names (exact, case-insensitive) allowed whatever they resolve to, private addresses included; they may also use
   * plain http. The lookup and connect checks still run: unspecified, broadcast and multicast addresses stay refused.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Address ranges (`10.1.0.0/16`, `fd00::/8`, or a single address) allowed although not public. A webhook URL whose
   * host is an IP literal inside one of them may use plain http. Tests and the conformance agent set `127.0.0.1/32`.
   */
  readonly allowedCidrs?: readonly string[];
  /**
   * The ports a destination admitted only by `allowedHosts`/`allowedCidrs` (a non-public address) may use: `'any'`, or
   * port numbers 1–65535. Default `[80, 443, 8080, 8443]`, so an allowlisted network's other services (Redis on 6379,
   * a database) stay out of reach. Public unicast addresses may use any port. A config whose URL is an allowlisted IP
   * literal on another port is refused at create (InvalidParams); any other delivery is refused when it connects.
   */
  readonly allowedPorts?: 'any' | readonly number[];
  /** Time to resolve, connect and (https) finish the TLS handshake. Default 10 s. */
  readonly connectTimeoutMs?: number;
  /** Time from the request being sent to the response headers. Default 15 s. */
  readonly headersTimeoutMs?: number;
  /** Time for the whole delivery, from resolving to the end of the (discarded) response body. Default 30 s. */
  readonly totalTimeoutMs?: number;
  /** First retry delay ceiling; it doubles with each attempt (full jitter). Default 1 s. */
  readonly baseDelayMs?: number;
  /** Longest delay between attempts, `Retry-After` included. Default 10 min. */
  readonly maxDelayMs?: number;
  /** Attempts per event and config, the first included, before a dead letter. Default 8. */
  readonly maxAttempts?: number;
  /** CAs trusted for https webhooks besides Node's bundled roots (a private PKI), PEM. */
  readonly ca?: string | Buffer | ReadonlyArray<string | Buffer>;
  /**
   * Resolves webhook host names (default `dns.lookup`, all addresses). Every address it returns is checked against
   * the policy before any connection, and the connected address again afterwards.
   */
  readonly resolveHost?: (hostname: string) => Promise<readonly LookupAddress[]>;
}

export const PUSH_DELIVERY_DEFAULTS = {
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 15_000,
  totalTimeoutMs: 30_000,
  baseDelayMs: 1_000,
  maxDelayMs: 10 * 60_000,
  maxAttempts: 8,
} as const;

/** Reads a positive integer option (milliseconds or a count), throwing at bootstrap on anything else. */
export function positiveIntegerOption(options: PushDeliveryOptions, name: keyof typeof PUSH_DELIVERY_DEFAULTS): number {
  const value = options[name] ?? PUSH_DELIVERY_DEFAULTS[name];
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new InvalidPushOptionsError(PushMessages.invalidOption(name, value, 'a positive integer'));
  }
  return value;
}
