import type { IncomingHttpHeaders } from 'node:http';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import type { CredentialSource } from './credential-source.js';

/** What the source needs of an HTTP request: node's, Express's or Fastify's all have these. */
interface HttpRequestLike {
  readonly headers: IncomingHttpHeaders;
  readonly url?: string;
  readonly socket?: unknown;
}

/** Credentials of an HTTP call (JSON-RPC or HTTP+JSON): headers, the raw query string, cookies, the TLS client certificate. */
export function httpCredentialSource(req: HttpRequestLike): CredentialSource {
  let query: URLSearchParams | undefined;
  let cookies: Map<string, string | null> | undefined;
  return {
    grpc: false,
    header(name) {
      const value = req.headers[name.toLowerCase()];
      return typeof value === 'string' ? value : undefined;
    },
    query(name) {
      query ??= new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
      const values = query.getAll(name);
      return values.length === 1 ? values[0] : undefined;
    },
    cookie(name) {
      cookies ??= parseCookies(req.headers.cookie);
      return cookies.get(name) ?? undefined;
    },
    peerCertificate() {
      const socket = req.socket as Partial<TLSSocket> | undefined;
      return socket?.authorized === true ? sentCertificate(socket) : undefined;
    },
    refusedPeerCertificate() {
      const socket = req.socket as Partial<TLSSocket> | undefined;
      return socket?.authorized === false && sentCertificate(socket) !== undefined;
    },
  };
}

/** The certificate the client sent on this TLS socket, verified or not; undefined on plain sockets or without one. */
function sentCertificate(socket: Partial<TLSSocket>): PeerCertificate | undefined {
  if (typeof socket.getPeerCertificate !== 'function') return undefined;
  const certificate = socket.getPeerCertificate(false);
  return certificate && Object.keys(certificate).length > 0 ? certificate : undefined;
}

/** RFC 6265 `name=value` pairs; a name sent twice maps to null (ambiguous, so neither value is used). */
function parseCookies(header: string | undefined): Map<string, string | null> {
  const cookies = new Map<string, string | null>();
  if (!header) return cookies;
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq < 0) continue;
    const name = pair.slice(0, eq).trim();
    let value = pair.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    cookies.set(name, cookies.has(name) ? null : value);
  }
  return cookies;
}
