import type { PeerCertificate } from 'node:tls';
import type { CredentialSource } from './credential-source.js';

/** What the source needs of grpc-js's Metadata and server call (structural, so the core never loads grpc-js). */
interface MetadataLike {
  get(key: string): Array<string | Buffer>;
}
interface ServerCallLike {
  getAuthContext?(): { sslPeerCertificate?: PeerCertificate };
}

/**
 * Credentials of a gRPC call: metadata entries (every apiKey location is read from metadata, since gRPC has no query
 * or cookies) and the client certificate grpc-js verified (`getAuthContext()`, grpc-js ≥ 1.14).
 */
export function grpcCredentialSource(metadata: MetadataLike, call: ServerCallLike | undefined): CredentialSource {
  return {
    grpc: true,
    header(name) {
      const values = metadata.get(name.toLowerCase());
      return values.length === 1 && typeof values[0] === 'string' ? values[0] : undefined;
    },
    query: () => undefined,
    cookie: () => undefined,
    peerCertificate: () => call?.getAuthContext?.().sslPeerCertificate,
    refusedPeerCertificate: () => false,
  };
}
