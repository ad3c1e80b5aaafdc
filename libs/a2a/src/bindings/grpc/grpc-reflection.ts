import {
  Metadata,
  ServerInterceptingCall,
  status,
  type Server,
  type ServerInterceptor,
  type ServiceDefinition,
} from '@grpc/grpc-js';
import type { PackageDefinition } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { MalformedRequest, tolerantDeserializer } from './malformed-request.js';

/** The rpc of both reflection services `@grpc/reflection` serves (v1 and v1alpha). */
const REFLECTION_PATHS: ReadonlySet<string> = new Set([
  '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo',
  '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo',
]);

/**
 * Serves gRPC server reflection (`@grpc/reflection`) for `definition` on `server`, its requests decoded without
 * throwing: grpc-js answers a frame that does not decode with INTERNAL, where it is the client's error, so such a frame
 * becomes a {@link MalformedRequest} that {@link malformedReflectionRequests} refuses with INVALID_ARGUMENT.
 */
export function addReflection(definition: PackageDefinition, server: Pick<Server, 'addService'>): void {
  new ReflectionService(definition).addToServer({
    addService: (service, implementation) => server.addService(withTolerantDecoders(service), implementation),
  });
}

/** A grpc-js server interceptor (its public API) that ends a reflection stream with INVALID_ARGUMENT at a frame that does not decode. */
export const malformedReflectionRequests: ServerInterceptor = (method, call) => {
  if (!REFLECTION_PATHS.has(method.path)) return call as ServerInterceptingCall;
  let refused = false;
  const intercepted: ServerInterceptingCall = new ServerInterceptingCall(call, {
    start: (next) =>
      next({
        onReceiveMessage: (message: unknown, forward) => {
          if (!(message instanceof MalformedRequest)) return forward(message);
          refused = true;
          intercepted.sendStatus({
            code: status.INVALID_ARGUMENT,
            details: 'The request is not a ServerReflectionRequest',
            metadata: new Metadata(),
          });
        },
        // A refused stream has its status: the handler must not answer its end.
        onReceiveHalfClose: (forward) => {
          if (!refused) forward();
        },
      }),
  });
  return intercepted;
};

function withTolerantDecoders(service: ServiceDefinition): ServiceDefinition {
  return Object.fromEntries(
    Object.entries(service).map(([name, method]) => [
      name,
      { ...method, requestDeserialize: tolerantDeserializer(method.requestDeserialize) },
    ]),
  ) as ServiceDefinition;
}
