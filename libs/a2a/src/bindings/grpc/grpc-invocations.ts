import { ServerInterceptingCall, type Metadata, type ServerInterceptor } from '@grpc/grpc-js';
import { A2A_INVOCATION, type A2aInvocation } from '../../context/a2a-invocation.js';
import { A2aError } from '../../errors/a2a.error.js';
import type { ValidationLimits } from '../../protocol/request.validator.js';
import { A2A_OPERATIONS, type A2aOperation } from '../a2a-operations.js';
import { newInvocation } from '../new-invocation.js';
import type { A2aGrpcProto } from './a2a-grpc.proto.js';
import { A2A_GRPC_PACKAGE, A2A_GRPC_SERVICE } from './a2a-proto.loader.js';
import { grpcProtocolContext, metadataHeaders } from './grpc-protocol-context.js';
import { MalformedRequest } from './malformed-request.js';
import type { ProtoObject } from './proto-json/proto-json.mapper.js';

/**
 * A grpc-js server interceptor (its public API) that decodes and validates each A2A request before Nest sees the call,
 * as the HTTP bindings do before theirs: the version from the metadata, the message to ProtoJSON, the shared
 * validators, then the extensions the call activates (`negotiate`, which refuses a call missing a required one). A
 * valid request travels on as the handler's data with its invocation attached (what `a2aInvocationOf` reads in a
 * guard); an invalid one is answered here, in the binding's error shape, so guards only ever see valid requests. The
 * answer's initial metadata echoes the activated extensions in `a2a-extensions` (spec §4.6); an error alone is a
 * trailers-only response, without them. Other services (reflection) pass untouched.
 */
export function a2aGrpcInvocations(
  proto: A2aGrpcProto,
  limits: () => ValidationLimits,
  negotiate: (requested: readonly string[]) => readonly string[],
): ServerInterceptor {
  const operations = new Map(
    A2A_OPERATIONS.map((operation) => [`/${A2A_GRPC_PACKAGE}.${A2A_GRPC_SERVICE}/${operation.name}`, operation]),
  );
  return (method, call) => {
    const operation = operations.get(method.path);
    if (!operation) return call as ServerInterceptingCall;
    let metadata: Metadata | undefined;
    let refused = false;
    let activated: readonly string[] = [];
    const intercepted: ServerInterceptingCall = new ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (received, forward) => {
            metadata = received;
            forward(received);
          },
          onReceiveMessage: (message: unknown, forward) => {
            try {
              const invocation = grpcInvocation(proto, operation, message, metadata!, limits(), negotiate);
              activated = invocation.extensions;
              (message as Record<symbol, unknown>)[A2A_INVOCATION] = invocation;
            } catch (error) {
              refused = true;
              intercepted.sendStatus(proto.errors.toGrpcError(error));
              return;
            }
            forward(message);
          },
          // A refused call has its status: the handler must not wait for, or answer, a message that never came.
          onReceiveHalfClose: (forward) => {
            if (!refused) forward();
          },
        }),
      sendMetadata: (sent, next) => {
        if (activated.length > 0) sent.set('a2a-extensions', activated.join(','));
        next(sent);
      },
    });
    return intercepted;
  };
}

/**
 * The invocation of one A2A call from its decoded message and metadata, as both gRPC paths (this interceptor, and
 * DirectGrpcDispatcher) make it before the app's guards run.
 *
 * @throws A2aError `ParseError` (undecodable bytes), `VersionNotSupported`, `InvalidParams`, `ExtensionSupportRequired`.
 */
export function grpcInvocation(
  proto: A2aGrpcProto,
  operation: A2aOperation,
  message: unknown,
  metadata: Metadata,
  limits: ValidationLimits,
  negotiate: (requested: readonly string[]) => readonly string[],
): A2aInvocation {
  if (message instanceof MalformedRequest) {
    throw new A2aError('ParseError', `The request is not a valid ${operation.requestType} message: ${message.reason}`);
  }
  const protocol = grpcProtocolContext(metadata);
  const request = operation.validate(proto.json.toProtoJson(operation.requestType, message as ProtoObject), limits);
  const negotiated = { version: protocol.version, extensions: negotiate(protocol.extensions) };
  return newInvocation(operation, 'GRPC', request, negotiated, metadataHeaders(metadata));
}
