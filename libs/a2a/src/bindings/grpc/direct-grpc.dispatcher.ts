import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import type { LoggerService } from '@nestjs/common';
import type { MethodDefinition, ServiceDefinition } from '@grpc/proto-loader';
import http2, { type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { isObservable, of, type Observable, type Subscription } from 'rxjs';
import { A2A_INVOCATION } from '../../context/a2a-invocation.js';
import type { A2aObservability } from '../../observability/a2a-observability.js';
import type { ValidationLimits } from '../../protocol/request.validator.js';
import { A2A_OPERATIONS, type A2aOperation } from '../a2a-operations.js';
import { BatchedStreamWriter, slowReaderError } from '../batched-stream.writer.js';
import type { A2aGrpcProto } from './a2a-grpc.proto.js';
import { A2A_GRPC_PACKAGE, A2A_GRPC_SERVICE } from './a2a-proto.loader.js';
import { DirectGrpcCall } from './direct-grpc.call.js';
import { grpcInvocation } from './grpc-invocations.js';
import { grpcTimeoutMs } from './grpc-timeout.js';

/** A handler as Nest's gRPC server registers it: the app's guards, interceptors, pipes and filters around the rpc. */
export type NestGrpcHandler = (data: unknown, metadata: Metadata, call: object) => unknown;

/** A gRPC status to answer with: what grpc-js makes of a handler's error (`serverErrorToStatus`). */
interface Status {
  code: number;
  details: string;
  metadata?: Metadata | null;
}

interface Route {
  operation: A2aOperation;
  method: MethodDefinition<object, object>;
  /** Nest's handler, looked up at the first call: handlers are registered after the server is created. */
  handler?: NestGrpcHandler;
}

export interface DirectGrpcOptions {
  proto: A2aGrpcProto;
  limits: () => ValidationLimits;
  negotiate: (requested: readonly string[]) => readonly string[];
  /** Largest request message accepted, in bytes (grpc-js's `grpc.max_receive_message_length`). */
  maxReceiveBytes: number;
  observability: A2aObservability;
  /** Nest's handler of an rpc of `lf.a2a.v1.A2AService`. */
  handlerOf: (rpc: string) => NestGrpcHandler | undefined;
  /** Where a call that fails unexpectedly is reported. */
  logger: Pick<LoggerService, 'error'>;
}

const RESPONSE_HEADERS = { ':status': 200, 'content-type': 'application/grpc+proto' };
/** Requests whose messages are compressed go to grpc-js, which inflates them; answers are never compressed. */
const ANSWER_HEADERS = { ...RESPONSE_HEADERS, 'grpc-accept-encoding': 'identity,deflate,gzip', 'grpc-encoding': 'identity' };
const OK_TRAILERS = { 'grpc-status': GrpcStatus.OK, 'grpc-message': 'OK' };
const OK: Status = { code: GrpcStatus.OK, details: 'OK' };
/** Request headers grpc-js keeps out of the metadata a handler sees. */
const TRANSPORT_HEADERS = ['grpc-timeout', 'grpc-encoding', 'grpc-accept-encoding', 'accept-encoding', 'te', 'content-type'];
const FRAME_HEADER_BYTES = 5;

/**
 * Serves the rpcs of `lf.a2a.v1.A2AService` straight from the HTTP/2 stream grpc-js's server accepted: grpc-js's own
 * per-call machinery (an intercepting call, a stream decoder, listener chains, a handler call object) costs about as
 * much CPU as node's HTTP/2 itself, more than an A2A GetTask, and its stream writer about as much per event as the
 * rest of a streamed event (docs/performance.md). The call still takes the path every gRPC call takes in Nest: the same
 * decoding and validation as the `a2aGrpcInvocations` interceptor, then Nest's handler with the app's guards,
 * interceptors, pipes and filters, inside the observability hooks; only the framing, deadline and status trailers are
 * written here, as grpc-js writes them, and a server stream's messages as the SSE writer writes its frames (batched per
 * tick, bounded while the client does not read).
 *
 * Other services (reflection), compressed requests and anything not sent as `application/grpc…` stay with grpc-js.
 * `grpcBinding({ directDispatch: false })` sends every call there.
 */
export class DirectGrpcDispatcher {
  private readonly routes: Map<string, Route>;

  constructor(private readonly options: DirectGrpcOptions) {
    const service = options.proto.packageDefinition[`${A2A_GRPC_PACKAGE}.${A2A_GRPC_SERVICE}`] as ServiceDefinition;
    this.routes = new Map(
      A2A_OPERATIONS.map((operation) => [
        `/${A2A_GRPC_PACKAGE}.${A2A_GRPC_SERVICE}/${operation.name}`,
        { operation, method: service[operation.name] as MethodDefinition<object, object> },
      ]),
    );
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
    new DirectCall(this.options, route, route.handler, stream, headers).start();
    return true;
  }
}

/** One call on the direct path, from its first byte to its status. */
class DirectCall {
  private readonly call: DirectGrpcCall;
  private readonly chunks: Buffer[] = [];
  private received = 0;
  /** The request message's length, from its frame header once that is in. */
  private declared: number | undefined;
  private settled = false;
  private headersSent = false;
  /** The extensions the call activated, echoed in the answer's headers (R62). */
  private extensions: readonly string[] = [];
  private deadlineTimer: NodeJS.Timeout | undefined;
  /** A server stream's subscription to the handler's answer, dropped when the call ends any other way. */
  private source: Subscription | undefined;
  /** A server stream's end for the observability hooks, told once however the stream ends. */
  private streamEnded: (() => void) | undefined;

  constructor(
    private readonly options: DirectGrpcOptions,
    private readonly route: Route,
    private readonly handler: NestGrpcHandler,
    private readonly stream: ServerHttp2Stream,
    headers: IncomingHttpHeaders,
  ) {
    const timeoutMs = grpcTimeoutMs(headers);
    // The stream is ours: its transport headers are dropped before the metadata is made, rather than removed after.
    for (const header of TRANSPORT_HEADERS) delete headers[header];
    const metadata = Metadata.fromHttp2Headers(headers);
    this.call = new DirectGrpcCall(stream, (custom) => this.sendHeaders(custom), metadata, headers[':path'] as string, headers[':authority'] ?? headers.host ?? '', timeoutMs === undefined ? Infinity : Date.now() + timeoutMs);
    // A malformed grpc-timeout is ignored: the call runs without a deadline (grpc-js would answer INTERNAL).
    if (timeoutMs !== undefined) {
      this.deadlineTimer = setTimeout(() => this.guarded(() => this.fail({ code: GrpcStatus.DEADLINE_EXCEEDED, details: 'Deadline exceeded' })), timeoutMs);
    }
  }

  start(): void {
    // Any error is followed by 'close', which cancels the call; there is nothing else to do with it.
    this.stream.on('error', () => undefined);
    this.stream.once('close', () => {
      clearTimeout(this.deadlineTimer);
      if (!this.settled) {
        this.settled = true;
        this.dropSource();
        this.call.cancel();
      }
    });
    this.stream.on('data', (chunk: Buffer) => this.guarded(() => this.receive(chunk)));
    this.stream.once('end', () => this.guarded(() => this.requestComplete()));
  }

  /**
   * Runs `step` of the call from an event, a timer or the handler's answer: whatever it throws (a header node refuses,
   * say) ends this call, with RST_STREAM INTERNAL_ERROR if its status cannot be sent, and never the process.
   */
  private guarded(step: () => void): void {
    try {
      step();
    } catch (error) {
      this.options.logger.error(`A gRPC call to ${this.call.getPath()} failed unexpectedly`, error instanceof Error ? error.stack : String(error));
      this.settled = true;
      clearTimeout(this.deadlineTimer);
      this.dropSource();
      if (!this.stream.destroyed) this.stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
      this.call.cancel();
    }
  }

  private receive(chunk: Buffer): void {
    if (this.settled) return;
    this.chunks.push(chunk);
    this.received += chunk.length;
    if (this.declared === undefined) {
      if (this.received < FRAME_HEADER_BYTES) return;
      this.declared = (this.chunks.length === 1 ? chunk : Buffer.concat(this.chunks)).readUInt32BE(1);
      if (this.declared > this.options.maxReceiveBytes) {
        const details = `Received message larger than max (${this.declared} vs. ${this.options.maxReceiveBytes})`;
        this.fail({ code: GrpcStatus.RESOURCE_EXHAUSTED, details });
        return;
      }
    }
    if (this.received > FRAME_HEADER_BYTES + this.declared) {
      this.fail({ code: GrpcStatus.UNIMPLEMENTED, details: `Received a second request message for ${this.kind()} method ${this.call.getPath()}` });
    }
  }

  private requestComplete(): void {
    if (this.settled) return;
    if (this.declared === undefined || this.received < FRAME_HEADER_BYTES + this.declared) {
      this.fail({ code: GrpcStatus.UNIMPLEMENTED, details: `Received no request message for ${this.kind()} method ${this.call.getPath()}` });
      return;
    }
    const { proto, limits, negotiate, observability } = this.options;
    const frame = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    this.chunks.length = 0;
    const message = this.route.method.requestDeserialize(frame.subarray(FRAME_HEADER_BYTES));
    try {
      const invocation = grpcInvocation(proto, this.route.operation, message, this.call.metadata, limits(), negotiate);
      this.extensions = invocation.extensions;
      (message as Record<symbol, unknown>)[A2A_INVOCATION] = invocation;
    } catch (error) {
      this.fail(proto.errors.toGrpcError(error));
      return;
    }
    this.call.request = message;
    observability.grpcCallStarted({ request: message }, () => this.run(message));
  }

  /** Nest's handler, its answer reduced as Nest's gRPC server reduces it: the first value, or the error. */
  private run(message: object): void {
    const end = (answer: () => void) => {
      this.guarded(answer);
      this.options.observability.grpcCallEnded(message);
    };
    const answered = (value: unknown) => end(() => this.answer(value));
    const failed = (error: unknown) => end(() => this.fail(statusOf(error)));
    let result: unknown;
    try {
      result = this.handler(message, this.call.metadata, this.call);
    } catch (error) {
      failed(error);
      return;
    }
    Promise.resolve(result)
      .then((outcome) => {
        if (this.route.operation.streaming) {
          return this.guarded(() => this.streamAnswer(isObservable(outcome) ? outcome : of(outcome), () => this.options.observability.grpcCallEnded(message)));
        }
        if (!isObservable(outcome)) return answered(outcome);
        let done = false;
        outcome.subscribe({
          next: (value) => {
            if (!done) (done = true), answered(value);
          },
          error: (error: unknown) => {
            if (!done) (done = true), failed(error);
          },
          complete: () => {
            if (!done) (done = true), failed({ code: GrpcStatus.INTERNAL, details: 'The handler completed without an answer' });
          },
        });
      }, failed)
      // Should reducing the answer itself throw (a subscribe that throws), the call fails rather than the process.
      .catch(failed);
  }

  private answer(value: unknown): void {
    if (this.settled) return;
    const frame = this.frameOf(value);
    if (!frame) {
      this.fail({ code: GrpcStatus.INTERNAL, details: 'Error serializing response' });
      return;
    }
    if (!this.settle()) return;
    this.sendHeaders();
    this.stream.once('wantTrailers', () => this.stream.sendTrailers(OK_TRAILERS));
    this.stream.end(frame);
  }

  /**
   * A server stream's answer: each value of the handler's Observable a message, then the status (OK, or what the
   * handler's error maps to, after the messages before it). A client that leaves too many messages unread gets
   * UNAVAILABLE instead, and its stream alone ends (the task goes on). `ended`: the stream is over.
   */
  private streamAnswer(source: Observable<unknown>, ended: () => void): void {
    if (this.settled) return ended();
    this.streamEnded = ended;
    const writer = new BatchedStreamWriter<Buffer>(this.stream, Buffer.concat);
    const next = (item: unknown) => {
      if (this.settled) return;
      const frame = this.frameOf(item);
      if (!frame) return this.fail({ code: GrpcStatus.INTERNAL, details: 'Error serializing response' });
      this.sendHeaders();
      if (writer.write(frame)) return;
      // What the client has not read is dropped: it resubscribes and starts again from the task's snapshot.
      writer.take();
      this.fail(this.options.proto.errors.toGrpcError(slowReaderError()));
    };
    const last = (status: Status) => {
      writer.finish();
      this.fail(status);
    };
    this.source = source.subscribe({
      next: (item) => this.guarded(() => next(item)),
      error: (error: unknown) => this.guarded(() => last(statusOf(error))),
      complete: () => this.guarded(() => last(OK)),
    });
    // Ended while subscribing (an answer that was already complete, or refused): nothing more is wanted of it.
    if (this.settled) this.source.unsubscribe();
  }

  /** The message `value` serializes to, with its gRPC frame header; undefined when it does not serialize. */
  private frameOf(value: unknown): Buffer | undefined {
    let body: Buffer;
    try {
      body = this.route.method.responseSerialize(value as object);
    } catch {
      return undefined;
    }
    const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + body.length);
    frame.writeUInt8(0, 0);
    frame.writeUInt32BE(body.length, 1);
    body.copy(frame, FRAME_HEADER_BYTES);
    return frame;
  }

  private kind(): string {
    return this.route.operation.streaming ? 'server streaming' : 'unary';
  }

  /** The status, in trailers after the headers if they are out, else as a trailers-only response (as grpc-js does). */
  private fail(status: Status): void {
    if (this.settled || !this.settle()) return;
    const trailers = { 'grpc-status': status.code, 'grpc-message': encodeURI(status.details), ...status.metadata?.toHttp2Headers() };
    if (this.headersSent) {
      this.stream.once('wantTrailers', () => this.stream.sendTrailers(trailers));
      this.stream.end();
    } else {
      this.stream.respond({ ...RESPONSE_HEADERS, ...trailers }, { endStream: true });
    }
    if (status.code === GrpcStatus.DEADLINE_EXCEEDED) this.call.cancel();
  }

  /** The answer's headers, with the handler's metadata and the activated extensions; sent once. */
  private sendHeaders(custom?: Metadata): void {
    if (this.headersSent || this.stream.destroyed || this.stream.closed) return;
    this.headersSent = true;
    const extra = custom?.toHttp2Headers();
    const headers = this.extensions.length > 0 || extra ? { ...ANSWER_HEADERS, ...extra, ...extensionsHeader(this.extensions) } : ANSWER_HEADERS;
    this.stream.respond(headers, { waitForTrailers: true });
  }

  /** A server stream is over: its source is dropped, and the observability hooks are told (once). */
  private dropSource(): void {
    this.source?.unsubscribe();
    const ended = this.streamEnded;
    this.streamEnded = undefined;
    ended?.();
  }

  /**
   * The call has its answer; whatever comes later (more bytes, a late handler) is dropped. False when the stream is
   * gone already (its 'close' may not have come yet): the call is cancelled, and nothing can be sent.
   */
  private settle(): boolean {
    this.settled = true;
    clearTimeout(this.deadlineTimer);
    this.dropSource();
    this.chunks.length = 0;
    if (!this.stream.destroyed && !this.stream.closed) return true;
    this.call.cancel();
    return false;
  }
}

function extensionsHeader(extensions: readonly string[]): Record<string, string> | undefined {
  return extensions.length > 0 ? { 'a2a-extensions': extensions.join(',') } : undefined;
}

/** grpc-js's reading of a handler's error (server-call.js `serverErrorToStatus`): its code when it has one, else UNKNOWN. */
function statusOf(error: unknown): Status {
  const fields = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; details?: unknown; message?: unknown; metadata?: unknown };
  const metadata = fields.metadata instanceof Metadata ? fields.metadata : null;
  if (typeof fields.code === 'number' && Number.isInteger(fields.code)) {
    const details = typeof fields.details === 'string' ? fields.details : typeof fields.message === 'string' ? fields.message : 'Unknown Error';
    return { code: fields.code, details, metadata };
  }
  return { code: GrpcStatus.UNKNOWN, details: typeof fields.message === 'string' ? fields.message : 'Unknown Error', metadata };
}
