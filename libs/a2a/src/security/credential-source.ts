import type { PeerCertificate } from 'node:tls';

/**
 * Where schemes read credentials, the same way on every binding: HTTP headers or gRPC metadata, the HTTP query string
 * and cookies, and the TLS peer certificate.
 */
export interface CredentialSource {
  /** The header (or gRPC metadata entry) by case-insensitive name; undefined when absent or sent more than once. */
  header(name: string): string | undefined;
  /** A query parameter (HTTP only): undefined when absent, repeated, or on gRPC. */
  query(name: string): string | undefined;
  /** A cookie (HTTP only): undefined when absent, repeated, or on gRPC. */
  cookie(name: string): string | undefined;
  /** The client certificate, only when the TLS layer verified its chain against the server's CA; else undefined. */
  peerCertificate(): PeerCertificate | undefined;
  /**
   * Whether the client sent a certificate the TLS layer could not verify (foreign CA, expired): a bad credential, not
   * a missing one. HTTPS only: grpc-js does not tell.
   */
  refusedPeerCertificate(): boolean;
  /** Whether the call reached us over gRPC, where apiKeys of every location are read from metadata. */
  readonly grpc: boolean;
}
