import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { PushDeliveryOptions } from './push-delivery.options.js';
import { InvalidPushOptionsError } from './push.errors.js';
import { PushMessages } from './push.messages.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

/** The part of the push options that decides where webhooks may point. */
export type PushAddressOptions = Pick<
  PushDeliveryOptions,
  'allowHttp' | 'allowedHosts' | 'allowedCidrs' | 'allowedPorts'
>;

/** Web ports: what an allowlisted receiver listens on, and not what other internal services do. */
const DEFAULT_ALLOWED_PORTS: readonly number[] = [80, 443, 8080, 8443];

/** Nothing legitimate listens there, and 0.0.0.0 dials the agent's own host: refused even inside an allowlist. */
const NEVER_DIALABLE: ReadonlySet<string> = new Set(['unspecified', 'broadcast', 'multicast']);
/**
 * IANA's global unicast block. ipaddr.js calls every IPv6 address it has no name for `unicast`, including the
 * deprecated IPv4-compatible `::7f00:1`; nothing outside 2000::/3 is allocated for public use.
 */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
const HOST_NAME = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/;

const RANGE_LABELS: Readonly<Record<string, string>> = {
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT',
  uniqueLocal: 'unique local',
  deprecatedSiteLocal: 'site-local',
  rfc6052: 'NAT64',
  rfc6145: 'IPv4-translated',
  teredo: 'Teredo',
  discard: 'discard-only',
  unallocated: 'unallocated',
  invalid: 'invalid',
};

/**
 * Where push notifications may go (spec §13.2): public unicast addresses only, unless the operator's
 * allowlist names a host or a range. The allowlist widens the address check; it never turns a check off, so the lookup
 * and connect guards run for allowlisted destinations too.
 */
export class PushAddressPolicy {
  private readonly allowHttp: boolean;
  private readonly hosts: ReadonlySet<string>;
  private readonly cidrs: readonly Cidr[];
  /** Undefined: any port. */
  private readonly ports?: ReadonlySet<number>;

  constructor(options: PushAddressOptions = {}) {
    this.allowHttp = options.allowHttp === true;
    this.ports = allowedPortsOf(options.allowedPorts);
    this.cidrs = (options.allowedCidrs ?? []).map((entry) => {
      const cidr = parseCidr(entry);
      if (!cidr) throw new InvalidPushOptionsError(PushMessages.invalidAllowedCidr(entry));
      return cidr;
    });
    this.hosts = new Set(
      (options.allowedHosts ?? []).map((entry) => {
        const host = typeof entry === 'string' ? normalizeHost(entry) : '';
        if (!(isIP(host) !== 0 || (host.length <= 253 && HOST_NAME.test(host)))) {
          throw new InvalidPushOptionsError(PushMessages.invalidAllowedHost(entry));
        }
        return host;
      }),
    );
  }

  /**
   * Whether a webhook may connect to `ip` (as DNS or the socket reports it, or a URL's IP literal without brackets).
   * `hostname` is the URL's host: an allowlisted host may reach any dialable address.
   */
  isAllowedAddress(ip: string, hostname?: string): boolean {
    const address = parseAddress(ip);
    if (!address) return false;
    const range = rangeOfAddress(address);
    if (range === 'unicast') return true;
    if (NEVER_DIALABLE.has(range)) return false;
    if (hostname !== undefined && this.isAllowlistedHost(hostname)) return true;
    return this.inAllowedCidr(address);
  }

  /**
   * Whether a webhook may reach `port` on `ip`: any port of a public unicast address, `allowedPorts` of an address the
   * allowlist admits. Asked once the address itself is allowed.
   */
  isAllowedPort(ip: string, port: number): boolean {
    if (!this.ports) return true;
    const address = parseAddress(ip);
    return address !== undefined && (rangeOfAddress(address) === 'unicast' || this.ports.has(port));
  }

  /** `allowedPorts` in words, for messages. */
  describePorts(): string {
    return this.ports ? `port${this.ports.size === 1 ? '' : 's'} ${[...this.ports].join(', ')}` : 'any port';
  }

  /** Whether `hostname` (a URL's, brackets and trailing dot allowed) is in `allowedHosts`. */
  isAllowlistedHost(hostname: string): boolean {
    return this.hosts.size > 0 && this.hosts.has(normalizeHost(hostname));
  }

  /**
   * Whether `url` may use plain http: with `allowHttp`, or when the allowlist exempts its host (an allowed host name,
   * or an IP literal inside an allowed range). Exempted destinations are the operator's own, typically loopback or a
   * private network where TLS is not set up (the conformance agent's `127.0.0.1/32`); a host name that merely
   * resolves into an allowed range is not known to be exempt when the config is created, so it needs https.
   */
  allowsPlainHttp(url: URL): boolean {
    if (this.allowHttp || this.isAllowlistedHost(url.hostname)) return true;
    const address = parseAddress(stripBrackets(url.hostname));
    return address !== undefined && !NEVER_DIALABLE.has(rangeOfAddress(address)) && this.inAllowedCidr(address);
  }

  /** ipaddr.js's name for the range of `ip` (`loopback`, `linkLocal`…), `unallocated` or `invalid`. */
  rangeOf(ip: string): string {
    const address = parseAddress(ip);
    return address ? rangeOfAddress(address) : 'invalid';
  }

  /** Whether an allowlist can admit `ip` at all: unspecified, broadcast and multicast addresses never are dialled. */
  isAllowlistable(ip: string): boolean {
    const address = parseAddress(ip);
    return address !== undefined && !NEVER_DIALABLE.has(rangeOfAddress(address));
  }

  /** The range of `ip` in words, for messages. */
  describeRange(ip: string): string {
    const range = this.rangeOf(ip);
    return RANGE_LABELS[range] ?? range;
  }

  private inAllowedCidr(address: Address): boolean {
    return this.cidrs.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));
  }
}

/**
 * Splits a comma-separated allowlist (the conformance agent's `A2A_PUSH_ALLOW=127.0.0.1/32`) into ranges and host
 * names; `PushAddressPolicy` validates both.
 */
export function pushAllowList(value: string | undefined): { allowedCidrs: string[]; allowedHosts: string[] } {
  const entries = (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return {
    allowedCidrs: entries.filter((entry) => parseCidr(entry) !== undefined),
    allowedHosts: entries.filter((entry) => parseCidr(entry) === undefined),
  };
}

/** The port a webhook URL dials: its own, else the scheme's. */
export function portOf(url: URL): number {
  return Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
}

function allowedPortsOf(value: PushAddressOptions['allowedPorts']): ReadonlySet<number> | undefined {
  if (value === 'any') return undefined;
  const ports = value ?? DEFAULT_ALLOWED_PORTS;
  if (!Array.isArray(ports) || !ports.every((port) => Number.isInteger(port) && port >= 1 && port <= 65535)) {
    throw new InvalidPushOptionsError(PushMessages.invalidAllowedPorts(value));
  }
  return new Set(ports);
}

/** A URL host without its IPv6 brackets. */
export function stripBrackets(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * Canonical addresses only (`net.isIP`: four-part dotted IPv4, any IPv6): ipaddr.js alone would also read `127.1` and
 * `0x7f000001`. IPv4-mapped and `::a.b.c.d` addresses are unwrapped to the IPv4 address they reach.
 */
function parseAddress(ip: string): Address | undefined {
  if (typeof ip !== 'string' || isIP(ip) === 0) return undefined;
  try {
    return ipaddr.process(ip);
  } catch {
    return undefined;
  }
}

function rangeOfAddress(address: Address): string {
  const range = address.range();
  if (range === 'unicast' && address.kind() === 'ipv6' && !address.match(GLOBAL_UNICAST_V6)) return 'unallocated';
  return range;
}

/** `a.b.c.d/n`, `x::/n`, or a single address; an IPv4-mapped range becomes the IPv4 range it covers. */
function parseCidr(entry: unknown): Cidr | undefined {
  if (typeof entry !== 'string') return undefined;
  const [ip, bits, extra] = entry.trim().split('/');
  if (extra !== undefined || ip.includes('%')) return undefined;
  const address = parseAddress(ip);
  if (!address) return undefined;
  const kind = ipaddr.parse(ip).kind();
  const max = kind === 'ipv4' ? 32 : 128;
  const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : Number.NaN;
  if (!(prefix >= 0 && prefix <= max)) return undefined;
  // process() unwrapped a mapped address: its range is the IPv4 range under the 96-bit mapping prefix.
  if (kind === 'ipv6' && address.kind() === 'ipv4') return prefix >= 96 ? [address, prefix - 96] : undefined;
  return [address, prefix];
}

function normalizeHost(hostname: string): string {
  const host = stripBrackets(hostname.trim().toLowerCase().replace(/\.$/, ''));
  return isIP(host) === 6 ? ipaddr.IPv6.parse(host).toRFC5952String() : host;
}
