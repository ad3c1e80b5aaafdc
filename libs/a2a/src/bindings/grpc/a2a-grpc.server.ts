import { Logger } from '@nestjs/common';
import { GrpcMethodStreamingType, ServerGrpc } from '@nestjs/microservices';
import type { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { A2A_GRPC_PACKAGE, A2A_GRPC_SERVICE } from './a2a-proto.loader.js';
import type { DirectGrpcDispatcher } from './direct/direct-grpc.dispatcher.js';
import type { NestGrpcHandler } from './direct/direct-grpc.options.js';
import { dropUnusableGrpcTimeout } from './grpc-timeout.js';

/**
 * Nest's gRPC server, with three changes.
 * - It tells `onListening` once it is bound, so the card lists the GRPC interface only when there is a server behind it.
 * - Where HTTP/2 hands a stream over, the A2A calls go to the {@link DirectGrpcDispatcher} when there is one, and
 *   every other stream to grpc-js, as before.
 * - A `grpc-timeout` header that grpc-js cannot parse is ignored (the call runs without a deadline), as the A2A binding
 *   answers every malformed input in the protocol's terms: grpc-js itself answers it with INTERNAL before any
 *   interceptor runs, so the header is dropped before grpc-js sees the stream. So is one past a timer's reach, which
 *   grpc-js would wrap round into an instant expiry.
 *
 * The last two read grpc-js's private `http2Servers` map: the peer range pins grpc-js to 1.14.x, and
 * test/e2e/grpc/grpc.e2e-spec.ts ("a malformed grpc-timeout") and test/e2e/grpc/grpc-direct.e2e-spec.ts fail if the map or the
 * behaviour changes. Should the map be gone, grpc-js serves every call and the log says so.
 */
export class A2aGrpcServer extends ServerGrpc {
  private readonly a2aLogger = new Logger('A2aGrpc');

  constructor(
    options: ConstructorParameters<typeof ServerGrpc>[0],
    private readonly onListening: () => void,
    private readonly direct?: (handlerOf: (rpc: string) => NestGrpcHandler | undefined) => DirectGrpcDispatcher,
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
      this.a2aLogger.warn(
        '@grpc/grpc-js has no http2Servers map: it serves every call, and answers malformed grpc-timeout headers with INTERNAL',
      );
      return server;
    }
    const direct = this.direct?.((rpc) => this.handlerOf(rpc));
    for (const http2Server of http2Servers.keys() as Iterable<EventEmitter>) {
      const grpcJs = http2Server.listeners('stream') as Array<(...args: unknown[]) => void>;
      http2Server.removeAllListeners('stream');
      http2Server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, ...rest: unknown[]) => {
        if (direct?.dispatch(stream, headers)) return;
        dropUnusableGrpcTimeout(headers);
        for (const listener of grpcJs) listener.call(http2Server, stream, headers, ...rest);
      });
    }
    return server;
  }

  /** The handler Nest registered for an rpc of the A2A service (`@GrpcMethod`, unary or server-streaming): the one grpc-js would otherwise call. */
  private handlerOf(rpc: string): NestGrpcHandler | undefined {
    const path = `/${A2A_GRPC_PACKAGE}.${A2A_GRPC_SERVICE}/${rpc}`;
    return this.getMessageHandler(A2A_GRPC_SERVICE, rpc, GrpcMethodStreamingType.NO_STREAMING, { path }) as
      NestGrpcHandler | undefined;
  }
}
