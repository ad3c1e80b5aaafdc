import { experimental, type ServerCredentials } from '@grpc/grpc-js';

/** PEM text of the server's TLS identity and of the CAs client certificates must chain to. */
export interface GrpcTlsIdentity {
  /** The CA certificates that client certificates are verified against. */
  ca: string | Buffer;
  /** The server's private key. */
  key: string | Buffer;
  /** The server's certificate (chain). */
  cert: string | Buffer;
}

/**
 * Server credentials for optional mutual TLS on the gRPC binding, e.g. for `mtls` OR `bearer`: the server asks for a
 * client certificate but also completes the handshake without one, or with one it cannot verify. grpc-js then
 * leaves `sslPeerCertificate` empty, so the mtls scheme sees no certificate and another scheme may pass; if none
 * does, the call fails with UNAUTHENTICATED.
 *
 * For mandatory mutual TLS use `ServerCredentials.createSsl(ca, [{ private_key, cert_chain }], true)`: a missing or
 * unverifiable certificate then fails the handshake, and clients see UNAVAILABLE rather than UNAUTHENTICATED.
 * (`createSsl(…, false)` never asks for a certificate at all.)
 *
 * grpc-js only offers this through its experimental certificate-provider credentials, hence the pinned minor
 * version of the peer dependency.
 */
export function optionalClientCertificateCredentials(identity: GrpcTlsIdentity): ServerCredentials {
  const provider = new StaticCertificateProvider(
    { caCertificate: Buffer.from(identity.ca) },
    { certificate: Buffer.from(identity.cert), privateKey: Buffer.from(identity.key) },
  );
  // grpc-js 1.14's declaration and implementation disagree on which argument is which provider; one serves both.
  return experimental.createCertificateProviderServerCredentials(provider, provider, false);
}

/**
 * Fixed certificates, handed to each listener on the next turn of the event loop: grpc-js subscribes before it
 * registers the server that waits for them, so an update delivered synchronously would be lost and every
 * connection dropped. Nothing changes later, so there is nothing to unsubscribe from.
 */
class StaticCertificateProvider implements experimental.CertificateProvider {
  constructor(
    private readonly ca: experimental.CaCertificateUpdate,
    private readonly identity: experimental.IdentityCertificateUpdate,
  ) {}

  addCaCertificateListener(listener: experimental.CaCertificateUpdateListener): void {
    setImmediate(() => listener(this.ca));
  }

  addIdentityCertificateListener(listener: experimental.IdentityCertificateUpdateListener): void {
    setImmediate(() => listener(this.identity));
  }

  removeCaCertificateListener(): void {}

  removeIdentityCertificateListener(): void {}
}
