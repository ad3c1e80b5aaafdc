import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { connect as connectTls, type SecureContext } from 'node:tls';
import { guardedLookup, type ResolveHost } from './push-address.lookup.js';
import { portOf, stripBrackets, type PushAddressPolicy } from './push-address.policy.js';
import { WebhookAddressRefusedError } from './push.errors.js';
import { PushMessages } from './push.messages.js';

export interface WebhookConnectOptions {
  readonly policy: PushAddressPolicy;
  readonly resolveHost?: ResolveHost;
  /** Trust for https webhooks; Node's bundled roots when absent. */
  readonly secureContext?: SecureContext;
  /** Aborts the attempt (the sender's timeouts); the socket is destroyed and the promise rejects with the reason. */
  readonly signal: AbortSignal;
}

/**
 * Opens the connection a webhook request will use, and refuses it before a single byte is written if the address
 * reached is not allowed:
 * - host names resolve through the guarded lookup, which refuses the host if any of its addresses is refused;
 * - IP literals never reach a lookup, and an address can change between the check and the dial (DNS rebinding), so the
 *   connected `remoteAddress` is checked again: the address checked is the one dialled;
 * - an address admitted only by the allowlist may be reached on `allowedPorts` only;
 * - TLS starts only after that check, so not even a ClientHello goes to a refused address.
 * There is no Agent: nothing is pooled, and no proxy is ever read from the environment.
 */
export function connectWebhook(
  url: URL,
  { policy, resolveHost, secureContext, signal }: WebhookConnectOptions,
): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const host = stripBrackets(url.hostname);
    const secure = url.protocol === 'https:';
    const port = portOf(url);
    const tcp = connectTcp({
      host,
      port,
      lookup: guardedLookup(policy, url.hostname, resolveHost),
      noDelay: true,
    });
    let current: Socket = tcp;
    let settled = false;
    const onAbort = () => fail(signal.reason);
    const finish = () => {
      settled = true;
      signal.removeEventListener('abort', onAbort);
    };
    function fail(error: unknown) {
      if (settled) return;
      finish();
      current.destroy();
      tcp.destroy();
      reject(error);
    }
    const succeed = (socket: Socket) => {
      if (settled) return;
      finish();
      socket.removeListener('error', fail);
      tcp.removeListener('error', fail);
      // From here the HTTP request reports socket errors itself; this keeps one arriving before it listens from crashing.
      socket.on('error', () => undefined);
      resolve(socket);
    };

    // Registered before anything can write to the socket, so this check runs first once connected.
    tcp.once('connect', () => {
      const remote = tcp.remoteAddress ?? '';
      if (!policy.isAllowedAddress(remote, url.hostname)) {
        fail(
          new WebhookAddressRefusedError(
            PushMessages.addressRefused(url.hostname, remote, policy.describeRange(remote)),
          ),
        );
        return;
      }
      if (!policy.isAllowedPort(remote, port)) {
        fail(
          new WebhookAddressRefusedError(PushMessages.portRefused(url.hostname, remote, port, policy.describePorts())),
        );
        return;
      }
      if (!secure) {
        succeed(tcp);
        return;
      }
      const name = host.replace(/\.$/, '');
      // SNI carries host names only (RFC 6066); `host` is still what the certificate is verified against.
      const tls = connectTls({
        socket: tcp,
        host: name,
        servername: isIP(name) ? undefined : name,
        secureContext,
        ALPNProtocols: ['http/1.1'],
      });
      current = tls;
      tls.on('error', fail);
      tls.once('secureConnect', () => succeed(tls));
    });
    tcp.on('error', fail);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}
