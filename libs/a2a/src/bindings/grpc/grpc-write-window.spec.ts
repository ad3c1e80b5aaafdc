import type { ServerInterceptingCallInterface, ServerMethodDefinition } from '@grpc/grpc-js';
import { windowedStreamWrites } from './grpc-write-window.js';

/** A stand-in for grpc-js' base call: records what is sent and completes a write only when the test says so. */
function fakeCall() {
  const sent: unknown[] = [];
  const pending: (() => void)[] = [];
  const call = {
    sendMetadata() {},
    sendMessage(message: unknown, callback: () => void) {
      sent.push(message);
      pending.push(callback);
    },
  };
  const completeOldest = () => pending.shift()!();
  return { call: call as unknown as ServerInterceptingCallInterface, sent, completeOldest };
}

function method(responseStream: boolean): ServerMethodDefinition<unknown, unknown> {
  return { path: '/lf.a2a.v1.A2AService/X', requestStream: false, responseStream } as ServerMethodDefinition<
    unknown,
    unknown
  >;
}

describe('windowedStreamWrites', () => {
  it('leaves unary calls as grpc-js built them', () => {
    const { call } = fakeCall();
    const original = call.sendMessage;
    expect(windowedStreamWrites(method(false), call)).toBe(call);
    expect(call.sendMessage).toBe(original);
  });

  it('acknowledges stream messages at once while fewer than 16 are in flight, in order', () => {
    const { call, sent } = fakeCall();
    const intercepted = windowedStreamWrites(method(true), call);
    const acked: number[] = [];
    for (let i = 0; i < 15; i++) intercepted.sendMessage(i, () => acked.push(i));
    expect(sent).toEqual([...Array(15).keys()]);
    expect(acked).toEqual([...Array(15).keys()]);
  });

  it('holds the acknowledgement past the window until a queued message is written (backpressure)', () => {
    const { call, sent, completeOldest } = fakeCall();
    const intercepted = windowedStreamWrites(method(true), call);
    const acked: number[] = [];
    for (let i = 0; i < 16; i++) intercepted.sendMessage(i, () => acked.push(i));
    expect(sent).toHaveLength(16);
    expect(acked).toHaveLength(15);
    completeOldest();
    expect(acked).toEqual([...Array(16).keys()]);
    // Still 15 in flight: the next message fills the window again and waits.
    intercepted.sendMessage(16, () => acked.push(16));
    expect(acked).toHaveLength(16);
    completeOldest();
    expect(acked).toHaveLength(17);
    // Under the window again: acknowledged at once.
    completeOldest();
    intercepted.sendMessage(17, () => acked.push(17));
    expect(acked).toHaveLength(18);
    expect(sent).toEqual([...Array(18).keys()]);
  });
});
