import type { Metadata } from '@grpc/grpc-js';
import { Controller, UseFilters, type Type } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { catchError, defer, map, throwError, type Observable } from 'rxjs';
import type { A2aCallContext } from '../../context/call-context.js';
import { A2aEngine } from '../../engine/a2a.engine.js';
import { A2aError } from '../../errors/a2a.error.js';
import { toA2aError } from '../../errors/to-a2a-error.js';
import { A2A_OPERATIONS, type A2aOperation, type StreamingOperation, type UnaryOperation } from '../a2a-operations.js';
import { A2aGrpcProto } from './a2a-grpc.proto.js';
import { A2A_GRPC_SERVICE } from './a2a-proto.loader.js';
import { grpcCallContext } from './grpc-call-context.js';
import { A2aGrpcExceptionFilter } from './grpc-exception.filter.js';
import { MalformedRequest } from './malformed-request.js';
import type { ProtoObject } from './proto-json.mapper.js';

/**
 * Every rpc of `lf.a2a.v1.A2AService` over the one engine. Each call is decoded to ProtoJSON, checked by the same
 * validators as the HTTP bindings, run, and its answer encoded back. As a Nest controller of the gRPC microservice it
 * runs through the app's guards, interceptors, pipes and filters like any handler. The two streaming rpcs return the
 * engine's per-task Observables, which Nest's gRPC server writes with `drain` backpressure and unsubscribes from when
 * the client cancels: the stream's watchers are released, the task keeps running (R49).
 */
@Controller()
@UseFilters(A2aGrpcExceptionFilter)
class GrpcOperations {
  constructor(
    private readonly engine: A2aEngine,
    private readonly proto: A2aGrpcProto,
  ) {}

  /** Every failure leaves as an A2aError, so the binding's filter answers it (unexpected ones as INTERNAL, logged). */
  async unary(operation: UnaryOperation, data: unknown, metadata: Metadata, call: object): Promise<ProtoObject> {
    try {
      const answer = await operation.run(this.engine, ...this.accept(operation, data, metadata, call));
      return this.proto.json.fromProtoJson(operation.responseType, answer);
    } catch (error) {
      throw toA2aError(error);
    }
  }

  /** Decoding happens on subscription, so its failures take the same path as the stream's own errors. */
  stream(operation: StreamingOperation, data: unknown, metadata: Metadata, call: object): Observable<ProtoObject> {
    return defer(() => operation.run(this.engine, ...this.accept(operation, data, metadata, call))).pipe(
      map((event) => this.proto.json.fromProtoJson(STREAM_RESPONSE, event)),
      catchError((error: unknown) => throwError(() => toA2aError(error))),
    );
  }

  /**
   * The call context first (an unsupported `a2a-version` is the most useful answer to a client speaking another
   * version), then the request, decoded to ProtoJSON for the operation to validate; a frame that did not decode is a
   * parse error.
   */
  private accept(operation: A2aOperation, data: unknown, metadata: Metadata, call: object): [unknown, A2aCallContext] {
    const context = grpcCallContext(metadata, call, tenantOf(data));
    if (data instanceof MalformedRequest) {
      throw new A2aError('ParseError', `The request is not a valid ${operation.requestType} message: ${data.reason}`);
    }
    return [this.proto.json.toProtoJson(operation.requestType, data as ProtoObject), context];
  }
}

const STREAM_RESPONSE = 'lf.a2a.v1.StreamResponse';

// One handler per rpc, registered with @GrpcMethod under the rpc's name, so Nest's pipeline (guards, interceptors,
// pipes, filters) wraps every rpc as it wraps any microservice handler.
for (const operation of A2A_OPERATIONS) {
  const handler = operation.streaming
    ? function (this: GrpcOperations, data: unknown, metadata: Metadata, call: object) {
        return this.stream(operation, data, metadata, call);
      }
    : function (this: GrpcOperations, data: unknown, metadata: Metadata, call: object) {
        return this.unary(operation, data, metadata, call);
      };
  // Named like a hand-written method (`sendMessage`): guards and interceptors see it as `context.getHandler().name`.
  const methodName = operation.name[0].toLowerCase() + operation.name.slice(1);
  Object.defineProperty(handler, 'name', { value: methodName });
  const descriptor: PropertyDescriptor = { value: handler, writable: true, configurable: true, enumerable: false };
  Object.defineProperty(GrpcOperations.prototype, methodName, descriptor);
  GrpcMethod(A2A_GRPC_SERVICE, operation.name)(GrpcOperations.prototype, methodName, descriptor);
}

export const A2aGrpcController: Type = GrpcOperations;

function tenantOf(data: unknown): string {
  const tenant = typeof data === 'object' && data !== null ? (data as { tenant?: unknown }).tenant : undefined;
  return typeof tenant === 'string' ? tenant : '';
}
