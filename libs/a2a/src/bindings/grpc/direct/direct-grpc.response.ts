import { status as GrpcStatus, type Metadata } from '@grpc/grpc-js';
import type { ServerHttp2Stream } from 'node:http2';
import type { CallStatus } from './direct-grpc.status.js';

const RESPONSE_HEADERS = { ':status': 200, 'content-type': 'application/grpc+proto' };
/** Requests whose messages are compressed go to grpc-js, which inflates them; answers are never compressed. */
const ANSWER_HEADERS = {
  ...RESPONSE_HEADERS,
  'grpc-accept-encoding': 'identity,deflate,gzip',
  'grpc-encoding': 'identity',
};
const OK_TRAILERS = { 'grpc-status': GrpcStatus.OK, 'grpc-message': 'OK' };

/** A call's answer on its HTTP/2 stream, headers and trailers as grpc-js writes them. */
export class DirectGrpcResponse {
  private headersSent = false;
  /** The extensions the call activated, echoed in the answer's headers. */
  extensions: readonly string[] = [];

  constructor(private readonly stream: ServerHttp2Stream) {}

  /** The answer's headers, with the handler's metadata and the activated extensions; sent once. */
  sendHeaders(custom?: Metadata): void {
    if (this.headersSent || this.stream.destroyed || this.stream.closed) return;
    this.headersSent = true;
    const extra = custom?.toHttp2Headers();
    const headers =
      this.extensions.length > 0 || extra
        ? { ...ANSWER_HEADERS, ...extra, ...extensionsHeader(this.extensions) }
        : ANSWER_HEADERS;
    this.stream.respond(headers, { waitForTrailers: true });
  }

  /** A unary answer: the headers (unless out already), its one message, then OK. */
  sendMessage(frame: Buffer): void {
    this.sendHeaders();
    this.stream.once('wantTrailers', () => this.stream.sendTrailers(OK_TRAILERS));
    this.stream.end(frame);
  }

  /** The status, in trailers after the headers if they are out, else as a trailers-only response (as grpc-js does). */
  sendStatus(status: CallStatus): void {
    const trailers = {
      'grpc-status': status.code,
      'grpc-message': encodeURI(status.details),
      ...status.metadata?.toHttp2Headers(),
    };
    if (this.headersSent) {
      this.stream.once('wantTrailers', () => this.stream.sendTrailers(trailers));
      this.stream.end();
    } else {
      this.stream.respond({ ...RESPONSE_HEADERS, ...trailers }, { endStream: true });
    }
  }
}

function extensionsHeader(extensions: readonly string[]): Record<string, string> | undefined {
  return extensions.length > 0 ? { 'a2a-extensions': extensions.join(',') } : undefined;
}
