import { promises as dns, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { PushAddressPolicy } from './push-address.policy.js';
import { WebhookAddressRefusedError } from './push.errors.js';
import { PushMessages } from './push.messages.js';

/** Resolves a host name to every address it has. */
export type ResolveHost = (hostname: string) => Promise<readonly LookupAddress[]>;

export const resolveWithDns: ResolveHost = (hostname) => dns.lookup(hostname, { all: true });

/**
 * A `lookup` for `net.connect` that lets a socket dial only addresses the policy allows, checked
 * when connecting. Node 20 asks for every address (`all: true`, for happy eyeballs) and may dial any of them, so one
 * refused address refuses the host: a name resolving to both a public and a private address is treated as hostile.
 * `urlHostname` is the webhook URL's host, which the policy's `allowedHosts` is checked against.
 */
export function guardedLookup(
  policy: PushAddressPolicy,
  urlHostname: string,
  resolveHost: ResolveHost = resolveWithDns,
): LookupFunction {
  return (hostname, options, callback) => {
    resolveHost(hostname).then(
      (all) => {
        const refused = all.find((entry) => !policy.isAllowedAddress(entry.address, urlHostname));
        if (refused) {
          const range = policy.describeRange(refused.address);
          callback(
            new WebhookAddressRefusedError(PushMessages.addressRefused(urlHostname, refused.address, range)),
            [],
          );
          return;
        }
        const family =
          options.family === 4 || options.family === 'IPv4'
            ? 4
            : options.family === 6 || options.family === 'IPv6'
              ? 6
              : 0;
        const addresses = family === 0 ? [...all] : all.filter((entry) => entry.family === family);
        if (addresses.length === 0) {
          callback(Object.assign(new Error(PushMessages.noAddress(urlHostname)), { code: 'ENOTFOUND' }), []);
        } else if (options.all) {
          callback(null, addresses);
        } else {
          callback(null, addresses[0].address, addresses[0].family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, []),
    );
  };
}
