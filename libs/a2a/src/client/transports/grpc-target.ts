import { A2aTransportError } from '../a2a-client.errors.js';
import { A2aClientMessages } from '../a2a-client.messages.js';
import type { ClientAddressGuard } from '../client-address.guard.js';

/** A gRPC interface's address, as the card writes it. */
export interface GrpcTarget {
  readonly host: string;
  readonly port: number;
  /** Whether the URL's scheme (`grpcs://`, `https://`) asks for TLS. */
  readonly tls: boolean;
}

/**
 * `host`, `port` and whether the URL's scheme asks for TLS, of a gRPC interface URL (`host:port`, optionally
 * `grpc://`, `grpcs://`, `https://`, `http://` or `dns:///` before it). Kept apart from the transport so that what
 * does not dial (the credential scope) reads gRPC URLs without loading `@grpc/grpc-js`.
 */
export function parseGrpcUrl(url: string): GrpcTarget {
  const scheme = /^([a-z][a-z0-9+.-]*):\/{2,3}/i.exec(url);
  const tls = scheme !== null && ['grpcs', 'https'].includes(scheme[1].toLowerCase());
  const rest = (scheme ? url.slice(scheme[0].length) : url).replace(/\/.*$/, '');
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(rest);
  if (!match)
    throw new A2aTransportError(
      'InvalidResponse',
      A2aClientMessages.invalidResponse('The agent card', `"${url}" is not a gRPC host:port`),
      { binding: 'GRPC', url },
    );
  return { host: match[1], port: match[2] ? Number(match[2]) : 443, tls };
}

/**
 * Whether the channel to `target` is plaintext: only when the URL does not ask for TLS, no TLS material (`tls.ca`, a
 * client certificate) is configured, and the SSRF guard lets the address use plain http.
 */
export function grpcIsPlaintext(target: GrpcTarget, guard: ClientAddressGuard, hasTlsMaterial: boolean): boolean {
  return !target.tls && !hasTlsMaterial && guard.allowsPlaintext(new URL(`http://${target.host}:${target.port}`));
}
