import {
  ServerInterceptingCall,
  type ServerInterceptingCallInterface,
  type ServerInterceptor,
  type ServerMethodDefinition,
} from '@grpc/grpc-js';

/**
 * How many messages of one server stream may be handed to HTTP/2 before grpc-js is told they were written. grpc-js'
 * stream writer already holds up to 16 messages (its objectMode high-water mark), so a window of the same size keeps
 * the memory a slow client can pin per stream in the same order.
 */
const WRITE_WINDOW = 16;

/**
 * A grpc-js server interceptor that lets a server stream's messages be written in batches. grpc-js acknowledges each
 * message only once HTTP/2 has written it to the socket, and its stream writer starts the next message only then: a
 * burst of events costs one socket write (and its completion round trip) per event, the bulk of a stream's per-event
 * CPU. Acknowledging a message as soon as it is queued, while fewer than {@link WRITE_WINDOW} are in flight, lets the
 * events of a burst share socket writes; past the window, acknowledgements wait for the socket again, so `drain`
 * backpressure (what Nest's gRPC server writes by) still holds. Order, trailers and cancellation are grpc-js' own.
 *
 * Built on grpc-js' public interceptor API: the intercepting call is a `ServerInterceptingCall` whose `sendMessage`
 * hands each message on at once and decides itself when to acknowledge it.
 */
export const windowedStreamWrites: ServerInterceptor = (method: ServerMethodDefinition<unknown, unknown>, call) =>
  method.responseStream ? new WindowedWritesCall(call) : (call as ServerInterceptingCall);

class WindowedWritesCall extends ServerInterceptingCall {
  private inFlight = 0;
  // grpc-js' writer waits for each acknowledgement before the next message, so at most one is ever held back.
  private held: (() => void) | undefined;

  constructor(next: ServerInterceptingCallInterface) {
    super(next);
  }

  override sendMessage(message: unknown, callback: () => void): void {
    this.inFlight++;
    super.sendMessage(message, () => {
      this.inFlight--;
      const release = this.held;
      this.held = undefined;
      release?.();
    });
    if (this.inFlight < WRITE_WINDOW) callback();
    else this.held = callback;
  }
}
