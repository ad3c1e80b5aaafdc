import { Logger } from '@nestjs/common';
import { ServerGrpc } from '@nestjs/microservices';
import type { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http2';

/** What grpc-js 1.14 accepts as a `grpc-timeout` (server-interceptors.js, DEADLINE_REGEX). */
const VALID_TIMEOUT = /(\d{1,8})\s*([HMSmun])/;

/**
 * Nest's gRPC server, with two changes. It tells `onListening` once it is bound, so the card lists the GRPC interface
 * only when there is a server behind it. And a `grpc-timeout` header that grpc-js cannot parse is ignored (the call
 * runs without a deadline), as the A2A binding answers every malformed input in the protocol's terms: grpc-js itself
 * answers it with INTERNAL before any interceptor runs, so the header is dropped where HTTP/2 hands the stream over.
 *
 * That reads grpc-js's private `http2Servers` map: the peer range pins grpc-js to 1.14.x, and
 * test/e2e/grpc.e2e-spec.ts ("a malformed grpc-timeout") fails if the map or the behaviour changes. Should the map be
 * gone, the server runs unchanged and says so in the log.
 */
export class A2aGrpcServer extends ServerGrpc {
  private readonly a2aLogger = new Logger('A2aGrpc');

  constructor(
    options: ConstructorParameters<typeof ServerGrpc>[0],
    private readonly onListening: () => void,
  ) {
    super(options);
  }

  override async listen(callback: (error?: unknown) => void): Promise<void> {
    await super.listen((error?: unknown) => {
      if (!error) this.onListening();
      callback(error);
    });
  }

  override async createClient(): Promise<unknown> {
    const server: unknown = await super.createClient();
    const http2Servers = (server as { http2Servers?: unknown }).http2Servers;
    if (!(http2Servers instanceof Map)) {
      this.a2aLogger.warn('@grpc/grpc-js has no http2Servers map: malformed grpc-timeout headers get its own INTERNAL answer');
      return server;
    }
    for (const http2Server of http2Servers.keys() as Iterable<EventEmitter>) {
      http2Server.prependListener('stream', (_stream: unknown, headers: IncomingHttpHeaders) => {
        const timeout = headers['grpc-timeout'];
        if (timeout !== undefined && !VALID_TIMEOUT.test(String(timeout))) delete headers['grpc-timeout'];
      });
    }
    return server;
  }
}
