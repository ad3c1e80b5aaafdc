import { isIP, connect as connectTcp, type LookupFunction, type Socket } from 'node:net';
import { connect as connectTls, type ConnectionOptions } from 'node:tls';
import { resolveWithDns, type ResolveHost } from '../push/push-address.lookup.js';
import { PushAddressPolicy, stripBrackets } from '../push/push-address.policy.js';
import { A2aAddressRefusedError, A2aClientOptionsError, A2aTransportError } from './a2a-client.errors.js';
import { A2aClientMessages } from './a2a-client.messages.js';
import type { A2aClientNetworkOptions } from './a2a-client.options.js';

/**
 * The client's SSRF guard (the push sender's policy and checks applied to what an agent card
 * points at): the card URL, every interface URL and the OAuth2 token URL come from the network, so the client dials
 * only public unicast addresses over https, unless `network` allowlists a host or a range.
 * - before anything: the URL's scheme, plain http, and an IP-literal host;
 * - at lookup: every address a host name resolves to (one refused address refuses the host: happy eyeballs may dial any);
 * - at connect: the address actually connected to, before a byte (or a TLS ClientHello) is written.
 */
export class ClientAddressGuard {
  private readonly policy: PushAddressPolicy;
  private readonly resolveHost: ResolveHost;

  constructor(options: A2aClientNetworkOptions = {}) {
    try {
      this.policy = new PushAddressPolicy({
        allowHttp: options.allowHttp,
        allowedHosts: options.allowedHosts,
        allowedCidrs: options.allowedCidrs,
      });
    } catch (error) {
      throw new A2aClientOptionsError(
        A2aClientMessages.invalidOption('network', `hosts and CIDRs (${(error as Error).message})`),
      );
    }
    this.resolveHost = options.resolveHost ?? resolveWithDns;
  }

  /**
   * @param shown the URL as messages show it (with credentials in its query redacted).
   * @throws A2aAddressRefusedError for a URL the client must not fetch, before any connection.
   */
  checkUrl(url: URL, shown = url.href): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new A2aAddressRefusedError(A2aClientMessages.schemeRefused(shown), { url: shown });
    if (url.username !== '' || url.password !== '')
      throw new A2aAddressRefusedError(A2aClientMessages.userinfoRefused(redact(new URL(shown))), {
        url: redact(new URL(shown)),
      });
    // The address first: that a metadata endpoint is refused says more than that it was plain http.
    this.checkHost(url.hostname, shown);
    if (url.protocol === 'http:' && !this.policy.allowsPlainHttp(url))
      throw new A2aAddressRefusedError(A2aClientMessages.plainHttpRefused(shown, stripBrackets(url.hostname)), {
        url: shown,
      });
  }

  /** @throws A2aAddressRefusedError for an IP-literal host the policy refuses; host names are checked when resolved. */
  checkHost(hostname: string, url?: string): void {
    const host = stripBrackets(hostname);
    if (isIP(host) !== 0 && !this.policy.isAllowedAddress(host, hostname)) throw this.refused(hostname, host, url);
  }

  /** Whether `url` may be reached without TLS (gRPC plaintext follows the same rule as plain http). */
  allowsPlaintext(url: URL): boolean {
    return this.policy.allowsPlainHttp(url);
  }

  /**
   * Every address of `hostname`, each checked (an IP literal is checked and returned as is).
   * @throws A2aAddressRefusedError when any address is refused; A2aTransportError (`Network`) when none resolves.
   */
  async resolve(hostname: string): Promise<string[]> {
    const host = stripBrackets(hostname);
    if (isIP(host) !== 0) {
      this.checkHost(hostname);
      return [host];
    }
    let all: readonly { address: string }[];
    try {
      all = await this.resolveHost(host);
    } catch (error) {
      throw new A2aTransportError('Network', A2aClientMessages.network(`Resolving ${host}`, (error as Error).message), {
        cause: error,
        connectFailed: true,
      });
    }
    const refused = all.find((entry) => !this.policy.isAllowedAddress(entry.address, hostname));
    if (refused) throw this.refused(hostname, refused.address);
    if (all.length === 0)
      throw new A2aTransportError('Network', A2aClientMessages.hostResolvedToNothing(host), { connectFailed: true });
    return all.map((entry) => entry.address);
  }

  /** A `lookup` for `net.connect` that hands out only allowed addresses. */
  lookup(urlHostname: string): LookupFunction {
    return (hostname, options, callback) => {
      this.resolve(hostname).then(
        (addresses) => {
          const family =
            options.family === 4 || options.family === 'IPv4'
              ? 4
              : options.family === 6 || options.family === 'IPv6'
                ? 6
                : 0;
          const entries = addresses
            .map((address) => ({ address, family: isIP(address) }))
            .filter((entry) => family === 0 || entry.family === family);
          if (entries.length === 0)
            callback(
              Object.assign(new Error(A2aClientMessages.hostResolvedToNothing(urlHostname)), { code: 'ENOTFOUND' }),
              [],
            );
          else if (options.all) callback(null, entries);
          else callback(null, entries[0].address, entries[0].family);
        },
        (error: NodeJS.ErrnoException) => callback(error, []),
      );
    };
  }

  /**
   * A connection to `host:port` whose remote address was checked after connecting and before anything was written;
   * TLS (with `tls` options: trust, client certificate, SNI) starts only after that check.
   */
  connect(
    target: { host: string; port: number; tls?: ConnectionOptions },
    callback: (error: Error | null, socket?: Socket) => void,
  ): void {
    const host = stripBrackets(target.host);
    const tcp = connectTcp({ host, port: target.port, lookup: this.lookup(target.host), noDelay: true });
    let done = false;
    const finish = (error: Error | null, socket?: Socket) => {
      if (done) return;
      done = true;
      tcp.removeListener('error', onError);
      if (error) {
        tcp.destroy();
        callback(error);
      } else {
        // The HTTP or gRPC layer reports socket errors from here on; this keeps one arriving in between from crashing.
        socket!.on('error', () => undefined);
        callback(null, socket);
      }
    };
    const onError = (error: Error) => finish(error);
    tcp.on('error', onError);
    tcp.once('connect', () => {
      const remote = tcp.remoteAddress ?? '';
      if (!this.policy.isAllowedAddress(remote, target.host)) return finish(this.refused(target.host, remote));
      if (!target.tls) return finish(null, tcp);
      const name = host.replace(/\.$/, '');
      const tls = connectTls({ ...target.tls, socket: tcp, host: name, servername: isIP(name) ? undefined : name });
      tls.once('error', onError);
      tls.once('secureConnect', () => {
        tls.removeListener('error', onError);
        finish(null, tls);
      });
    });
  }

  private refused(hostname: string, address: string, url?: string): A2aAddressRefusedError {
    const message = this.policy.isAllowlistable(address)
      ? A2aClientMessages.addressRefused
      : A2aClientMessages.addressNeverDialled;
    return new A2aAddressRefusedError(message(hostname, address, this.policy.describeRange(address)), { url });
  }
}

/** The URL without its userinfo, for messages. */
function redact(url: URL): string {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href;
}
