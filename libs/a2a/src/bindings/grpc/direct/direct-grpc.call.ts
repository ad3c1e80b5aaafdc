import type { Metadata, ServerUnaryCall } from '@grpc/grpc-js';
import { EventEmitter } from 'node:events';
import type { ServerHttp2Stream } from 'node:http2';
import { TLSSocket } from 'node:tls';

type UnaryCall = ServerUnaryCall<object, object>;
type UnaryCallSurface = Pick<
  UnaryCall,
  | 'cancelled'
  | 'metadata'
  | 'request'
  | 'getPeer'
  | 'sendMetadata'
  | 'getDeadline'
  | 'getPath'
  | 'getHost'
  | 'getAuthContext'
>;
type AuthContext = ReturnType<UnaryCall['getAuthContext']>;

/**
 * What DirectGrpcDispatcher hands the Nest pipeline as a call's third argument, in place of grpc-js's
 * `ServerUnaryCall`: the same surface (request, metadata, peer, deadline, path, host, auth context, `sendMetadata`,
 * `cancelled` and its event), read off the HTTP/2 stream the way grpc-js reads it. ORCA's per-call metrics recorder
 * (`getMetricsRecorder`) is the one member it lacks: grpc-js does not export it, and this server never enables it.
 */
export class DirectGrpcCall extends EventEmitter implements UnaryCallSurface {
  cancelled = false;
  request: object = {};

  constructor(
    private readonly stream: ServerHttp2Stream,
    /** Sends the answer's headers with `metadata` added, unless they are out already. */
    private readonly sendHeaders: (metadata: Metadata) => void,
    readonly metadata: Metadata,
    private readonly path: string,
    private readonly host: string,
    private readonly deadline: number,
  ) {
    super();
  }

  getPeer(): string {
    const socket = this.stream.session?.socket;
    if (!socket?.remoteAddress) return 'unknown';
    return socket.remotePort ? `${socket.remoteAddress}:${socket.remotePort}` : socket.remoteAddress;
  }

  /** Sent at once, as grpc-js sends it; only the first call has an effect. */
  sendMetadata(responseMetadata: Metadata): void {
    if (!this.cancelled) this.sendHeaders(responseMetadata);
  }

  getDeadline(): number {
    return this.deadline;
  }

  getPath(): string {
    return this.path;
  }

  getHost(): string {
    return this.host;
  }

  /** As grpc-js 1.14 reports it: the verified client certificate of a TLS connection, else nothing. */
  getAuthContext(): AuthContext {
    const socket = this.stream.session?.socket;
    if (!(socket instanceof TLSSocket) || !socket.authorized) return {};
    const certificate = socket.getPeerCertificate();
    return { transportSecurityType: 'ssl', sslPeerCertificate: certificate.raw ? certificate : undefined };
  }

  /** The client went away (RST_STREAM, a closed connection) or the deadline passed before the answer. */
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.emit('cancelled');
  }
}
