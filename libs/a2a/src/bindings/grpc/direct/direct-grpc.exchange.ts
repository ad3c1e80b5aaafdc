import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import http2, { type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { isObservable, of, type Observable, type Subscription } from 'rxjs';
import { A2A_INVOCATION } from '../../../context/a2a-invocation.js';
import { BatchedStreamWriter, slowReaderError } from '../../batched-stream.writer.js';
import { grpcInvocation } from '../grpc-invocations.js';
import { grpcTimeoutMs } from '../grpc-timeout.js';
import { DirectGrpcCall } from './direct-grpc.call.js';
import { messageFrame, RequestFrameReader } from './direct-grpc.frame.js';
import type { DirectGrpcOptions, NestGrpcHandler } from './direct-grpc.options.js';
import { DirectGrpcResponse } from './direct-grpc.response.js';
import type { DirectGrpcRoute } from './direct-grpc.routes.js';
import { OK_STATUS, statusOf, type CallStatus } from './direct-grpc.status.js';

/** Request headers grpc-js keeps out of the metadata a handler sees. */
const TRANSPORT_HEADERS = [
  'grpc-timeout',
  'grpc-encoding',
  'grpc-accept-encoding',
  'accept-encoding',
  'te',
  'content-type',
];

/** One call on the direct path, from its first byte to its status. */
export class DirectGrpcExchange {
  private readonly call: DirectGrpcCall;
  private readonly request = new RequestFrameReader();
  private readonly response: DirectGrpcResponse;
  private settled = false;
  private deadlineTimer: NodeJS.Timeout | undefined;
  /** A server stream's subscription to the handler's answer, dropped when the call ends any other way. */
  private source: Subscription | undefined;
  /** A server stream's end for the observability hooks, told once however the stream ends. */
  private streamEnded: (() => void) | undefined;

  constructor(
    private readonly options: DirectGrpcOptions,
    private readonly route: DirectGrpcRoute,
    private readonly handler: NestGrpcHandler,
    private readonly stream: ServerHttp2Stream,
    headers: IncomingHttpHeaders,
  ) {
    this.response = new DirectGrpcResponse(stream);
    const timeoutMs = grpcTimeoutMs(headers);
    // The stream is ours: its transport headers are dropped before the metadata is made, rather than removed after.
    for (const header of TRANSPORT_HEADERS) delete headers[header];
    const metadata = Metadata.fromHttp2Headers(headers);
    this.call = new DirectGrpcCall(
      stream,
      (custom) => this.response.sendHeaders(custom),
      metadata,
      headers[':path'] as string,
      headers[':authority'] ?? headers.host ?? '',
      timeoutMs === undefined ? Infinity : Date.now() + timeoutMs,
    );
    // A malformed grpc-timeout is ignored: the call runs without a deadline (grpc-js would answer INTERNAL).
    if (timeoutMs !== undefined) {
      this.deadlineTimer = setTimeout(
        () => this.guarded(() => this.fail({ code: GrpcStatus.DEADLINE_EXCEEDED, details: 'Deadline exceeded' })),
        timeoutMs,
      );
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
      this.options.logger.error(
        `A gRPC call to ${this.call.getPath()} failed unexpectedly`,
        error instanceof Error ? error.stack : String(error),
      );
      this.settled = true;
      clearTimeout(this.deadlineTimer);
      this.dropSource();
      if (!this.stream.destroyed) this.stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
      this.call.cancel();
    }
  }

  private receive(chunk: Buffer): void {
    if (this.settled) return;
    const declared = this.request.add(chunk);
    if (declared !== undefined && declared > this.options.maxReceiveBytes) {
      const details = `Received message larger than max (${declared} vs. ${this.options.maxReceiveBytes})`;
      this.fail({ code: GrpcStatus.RESOURCE_EXHAUSTED, details });
      return;
    }
    if (this.request.overrun) {
      this.fail({
        code: GrpcStatus.UNIMPLEMENTED,
        details: `Received a second request message for ${this.kind()} method ${this.call.getPath()}`,
      });
    }
  }

  private requestComplete(): void {
    if (this.settled) return;
    if (!this.request.complete) {
      this.fail({
        code: GrpcStatus.UNIMPLEMENTED,
        details: `Received no request message for ${this.kind()} method ${this.call.getPath()}`,
      });
      return;
    }
    const { proto, limits, negotiate, observability } = this.options;
    const message = this.route.method.requestDeserialize(this.request.take());
    try {
      const invocation = grpcInvocation(proto, this.route.operation, message, this.call.metadata, limits(), negotiate);
      this.response.extensions = invocation.extensions;
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
          return this.guarded(() =>
            this.streamAnswer(isObservable(outcome) ? outcome : of(outcome), () =>
              this.options.observability.grpcCallEnded(message),
            ),
          );
        }
        if (!isObservable(outcome)) return answered(outcome);
        let done = false;
        outcome.subscribe({
          next: (value) => {
            if (done) return;
            done = true;
            answered(value);
          },
          error: (error: unknown) => {
            if (done) return;
            done = true;
            failed(error);
          },
          complete: () => {
            if (done) return;
            done = true;
            failed({ code: GrpcStatus.INTERNAL, details: 'The handler completed without an answer' });
          },
        });
      }, failed)
      // Should reducing the answer itself throw (a subscribe that throws), the call fails rather than the process.
      .catch(failed);
  }

  private answer(value: unknown): void {
    if (this.settled) return;
    const frame = messageFrame(this.route.method, value);
    if (!frame) {
      this.fail({ code: GrpcStatus.INTERNAL, details: 'Error serializing response' });
      return;
    }
    if (!this.settle()) return;
    this.response.sendMessage(frame);
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
      const frame = messageFrame(this.route.method, item);
      if (!frame) return this.fail({ code: GrpcStatus.INTERNAL, details: 'Error serializing response' });
      this.response.sendHeaders();
      if (writer.write(frame)) return;
      // What the client has not read is dropped: it resubscribes and starts again from the task's snapshot.
      writer.take();
      this.fail(this.options.proto.errors.toGrpcError(slowReaderError()));
    };
    const last = (status: CallStatus) => {
      writer.finish();
      this.fail(status);
    };
    this.source = source.subscribe({
      next: (item) => this.guarded(() => next(item)),
      error: (error: unknown) => this.guarded(() => last(statusOf(error))),
      complete: () => this.guarded(() => last(OK_STATUS)),
    });
    // Ended while subscribing (an answer that was already complete, or refused): nothing more is wanted of it.
    if (this.settled) this.source.unsubscribe();
  }

  private kind(): string {
    return this.route.operation.streaming ? 'server streaming' : 'unary';
  }

  /** Ends the call with `status`, unless it has its answer already. */
  private fail(status: CallStatus): void {
    if (this.settled || !this.settle()) return;
    this.response.sendStatus(status);
    if (status.code === GrpcStatus.DEADLINE_EXCEEDED) this.call.cancel();
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
    this.request.drop();
    if (!this.stream.destroyed && !this.stream.closed) return true;
    this.call.cancel();
    return false;
  }
}
