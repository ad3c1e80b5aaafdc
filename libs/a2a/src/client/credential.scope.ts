import type { AgentInterface } from '../protocol/a2a.types.js';
import { A2aClientOptionsError, A2aCredentialsRefusedError } from './a2a-client.errors.js';
import { A2aClientMessages } from './a2a-client.messages.js';
import type { ClientAddressGuard } from './client-address.guard.js';
import { grpcIsPlaintext, parseGrpcUrl } from './transports/grpc-target.js';

/**
 * Where the client's credentials may go: the origin the card was fetched from (no redirect is followed, so it is the
 * card URL's) and the origins `credentials.allowedOrigins` names. A card is data from the network: an interface URL
 * it lists elsewhere (another host, port or scheme) gets no credential, and the call is refused rather than sent
 * without one, so that the app sees why and can name the origin if it is indeed the agent's.
 */
export class CredentialScope {
  private readonly cardOrigin: string;
  private readonly allowed: ReadonlySet<string>;

  constructor(
    cardUrl: string,
    allowedOrigins: readonly string[] | undefined,
    private readonly guard: ClientAddressGuard,
    private readonly grpcTlsMaterial: boolean,
  ) {
    this.cardOrigin = new URL(cardUrl).origin;
    if (allowedOrigins !== undefined && !Array.isArray(allowedOrigins))
      throw new A2aClientOptionsError(A2aClientMessages.invalidOption('credentials.allowedOrigins', ORIGINS));
    this.allowed = new Set((allowedOrigins ?? []).map(checkedOrigin));
  }

  /** @throws A2aCredentialsRefusedError when `entry` lies outside the scope. */
  check(entry: AgentInterface): void {
    const origin = this.originOf(entry);
    if (origin !== undefined && (origin === this.cardOrigin || this.allowed.has(origin))) return;
    throw new A2aCredentialsRefusedError(
      A2aClientMessages.credentialOriginRefused(entry.url, origin ?? 'unknown', this.cardOrigin),
      {
        binding: entry.protocolBinding,
        url: entry.url,
      },
    );
  }

  /**
   * The interface's origin: an HTTP URL's own; for gRPC, the http(s) origin its channel amounts to (https unless it is
   * plaintext, as the gRPC transport decides). Undefined for a URL that cannot be read.
   */
  private originOf(entry: AgentInterface): string | undefined {
    try {
      if (entry.protocolBinding !== 'GRPC') return new URL(entry.url).origin;
      const target = parseGrpcUrl(entry.url);
      const scheme = grpcIsPlaintext(target, this.guard, this.grpcTlsMaterial) ? 'http' : 'https';
      return new URL(`${scheme}://${target.host}:${target.port}`).origin;
    } catch {
      return undefined;
    }
  }
}

const ORIGINS = 'a list of absolute http(s) origins (scheme, host, optional port; no path)';

/** An `allowedOrigins` entry as an origin: absolute http(s), nothing after the host and port but an optional `/`. */
function checkedOrigin(entry: string): string {
  let url: URL | undefined;
  try {
    url = new URL(String(entry));
  } catch {
    url = undefined;
  }
  const bare =
    url !== undefined &&
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.username === '' &&
    url.password === '' &&
    url.pathname === '/' &&
    url.search === '' &&
    url.hash === '';
  if (!bare || !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]+\/?$/i.test(String(entry))) {
    throw new A2aClientOptionsError(
      A2aClientMessages.invalidOption('credentials.allowedOrigins', `${ORIGINS}, and "${String(entry)}" is not one`),
    );
  }
  return url!.origin;
}
