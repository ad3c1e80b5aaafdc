import { jest } from '@jest/globals';
import http2 from 'node:http2';
import { EventEmitter } from 'node:events';
import type { ServerHttp2Stream } from 'node:http2';
import { A2aGrpcProto } from '../../../libs/a2a/src/bindings/grpc/a2a-grpc.proto.js';
import { DirectGrpcDispatcher } from '../../../libs/a2a/src/bindings/grpc/direct/direct-grpc.dispatcher.js';
import type { NestGrpcHandler } from '../../../libs/a2a/src/bindings/grpc/direct/direct-grpc.options.js';
import type { A2aObservability } from '../../../libs/a2a/src/observability/a2a-observability.js';

/** An HTTP/2 stream as the dispatcher uses it; `respond` refuses, as node does with a header it will not send. */
class RefusingStream extends EventEmitter {
  destroyed = false;
  closed = false;
  readonly close = jest.fn((_code?: number) => {
    this.closed = true;
  });
  respond(): void {
    throw new TypeError('Invalid value for header "x-bad"');
  }
  end(): void {}
  sendTrailers(): void {}
}

/** A GetTask request as it comes on the wire: the 5-byte gRPC frame header, then the message. */
function getTaskFrame(proto: A2aGrpcProto): Buffer {
  const service = proto.packageDefinition['lf.a2a.v1.A2AService'] as unknown as Record<
    string,
    { requestSerialize(value: object): Buffer }
  >;
  const body = service.GetTask.requestSerialize({ id: 'task-1' });
  const head = Buffer.alloc(5);
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

describe('DirectGrpcDispatcher', () => {
  it('ends a call whose answer cannot be sent with RST_STREAM INTERNAL_ERROR, and keeps the process up', async () => {
    const proto = new A2aGrpcProto();
    const logged: unknown[] = [];
    const handler: NestGrpcHandler = async () => ({ id: 'task-1' });
    const dispatcher = new DirectGrpcDispatcher({
      proto,
      limits: () => ({ maxJsonDepth: 32 }) as never,
      negotiate: () => [],
      maxReceiveBytes: 1024,
      observability: {
        grpcCallStarted: (_context: unknown, done: () => unknown) => done(),
        grpcCallEnded: () => undefined,
      } as unknown as A2aObservability,
      handlerOf: () => handler,
      logger: { error: (...args: unknown[]) => void logged.push(args) },
    });
    const unhandled = jest.fn();
    process.on('unhandledRejection', unhandled);
    try {
      const stream = new RefusingStream();
      const served = dispatcher.dispatch(stream as unknown as ServerHttp2Stream, {
        ':path': '/lf.a2a.v1.A2AService/GetTask',
        'content-type': 'application/grpc',
        'a2a-version': '1.0',
      });
      expect(served).toBe(true);
      stream.emit('data', getTaskFrame(proto));
      stream.emit('end');
      await new Promise((resolve) => setImmediate(resolve));
      expect(stream.close).toHaveBeenCalledWith(http2.constants.NGHTTP2_INTERNAL_ERROR);
      expect(logged).toHaveLength(1);
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });
});
