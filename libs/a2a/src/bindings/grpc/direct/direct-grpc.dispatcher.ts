/**
 * Contract of the direct gRPC path, a fast path beside grpc-js's:
 * - Every call it serves is answered byte-equal to grpc-js and Nest's microservice serving it (`directDispatch:
 *   false`): the same headers, messages and trailers, the same statuses for framing, size and deadline faults, through
 *   the same Nest handler with the app's guards, interceptors, pipes and filters, inside the same observability hooks.
 * - It reads grpc-js internals that are not documented API: A2aGrpcServer hands it the streams of grpc-js's private
 *   `http2Servers` map; DirectGrpcCall reproduces `ServerUnaryCall`, direct-grpc.status.ts `serverErrorToStatus`
 *   (server-call.js), direct-grpc.response.ts its headers and trailers.
 *   Pinned for that: `@grpc/grpc-js` ^1.14.7 in package.json (the library's peer range: ~1.14.0) and
 *   `@nestjs/microservices` ^12.1.1 (its `getMessageHandler`).
 * - It leaves a call to grpc-js when `grpcBinding({ directDispatch: false })`, when the map is gone (logged once), and
 *   call by call for another service (reflection), a request not sent as `application/grpc…`, a compressed one, or an
 *   rpc Nest has no handler for.
 * - Equality is held by test/e2e/grpc/grpc-direct.e2e-spec.ts (both paths, bytes on the wire included) and
 *   test/unit/grpc/direct-grpc-dispatcher.spec.ts (a call whose answer cannot be sent); test/e2e/grpc/grpc.e2e-spec.ts
 *   runs the binding's suite on this path.
 */
import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { DirectGrpcExchange } from './direct-grpc.exchange.js';
import type { DirectGrpcOptions } from './direct-grpc.options.js';
import { directGrpcRoutes, type DirectGrpcRoute } from './direct-grpc.routes.js';

/**
 * Serves the rpcs of `lf.a2a.v1.A2AService` straight from the HTTP/2 stream grpc-js's server accepted: grpc-js's own
 * per-call machinery (an intercepting call, a stream decoder, listener chains, a handler call object) costs about as
 * much CPU as node's HTTP/2 itself, more than an A2A GetTask, and its stream writer about as much per event as the
 * rest of a streamed event (docs/performance.md). The call still takes the path every gRPC call takes in Nest: the same
 * decoding and validation as the `a2aGrpcInvocations` interceptor, then Nest's handler with the app's guards,
 * interceptors, pipes and filters, inside the observability hooks; only the framing, deadline and status trailers are
 * written here, as grpc-js writes them, and a server stream's messages as the SSE writer writes its frames (batched per
 * tick, bounded while the client does not read).
 */
export class DirectGrpcDispatcher {
  private readonly routes: Map<string, DirectGrpcRoute>;

  constructor(private readonly options: DirectGrpcOptions) {
    this.routes = directGrpcRoutes(options.proto);
  }

  /** Serves the stream and returns true when it is a call this path takes; false leaves it untouched for grpc-js. */
  dispatch(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): boolean {
    const route = this.routes.get(headers[':path'] as string);
    if (!route) return false;
    const contentType = headers['content-type'];
    if (typeof contentType !== 'string' || !contentType.startsWith('application/grpc')) return false;
    const encoding = headers['grpc-encoding'];
    if (encoding !== undefined && encoding !== 'identity') return false;
    route.handler ??= this.options.handlerOf(route.operation.name);
    if (!route.handler) return false;
    new DirectGrpcExchange(this.options, route, route.handler, stream, headers).start();
    return true;
  }
}
