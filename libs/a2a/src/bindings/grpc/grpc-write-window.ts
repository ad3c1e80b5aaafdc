import type { ServerInterceptingCallInterface, ServerInterceptor, ServerMethodDefinition } from '@grpc/grpc-js';

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
 */
export const windowedStreamWrites: ServerInterceptor = (method: ServerMethodDefinition<unknown, unknown>, call) => {
  if (method.responseStream) windowWrites(call);
  // The interface is what grpc-js calls; its type names the class only because that is how interceptors are built.
  return call as ReturnType<ServerInterceptor>;
};

function windowWrites(call: ServerInterceptingCallInterface): void {
  const send = call.sendMessage.bind(call);
  let inFlight = 0;
  // grpc-js' writer waits for each acknowledgement before the next message, so at most one is ever held back.
  let held: (() => void) | undefined;
  const written = () => {
    inFlight--;
    const release = held;
    held = undefined;
    release?.();
  };
  call.sendMessage = (message: unknown, callback: () => void) => {
    inFlight++;
    send(message, written);
    if (inFlight < WRITE_WINDOW) callback();
    else held = callback;
  };
}
