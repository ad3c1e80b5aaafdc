import type { MethodDefinition, PackageDefinition, ServiceDefinition } from '@grpc/proto-loader';
import type protobuf from 'protobufjs';
import { checkWireTypes } from './wire-types.check.js';

/**
 * Stands in for a request whose bytes do not decode as the method's message. `@grpc/grpc-js` would answer such a frame
 * itself with INTERNAL; handing this to the handler instead lets the binding answer INVALID_ARGUMENT, the status the
 * error table gives a parse error, through the same pipeline (and exception filters) as every other failure.
 */
export class MalformedRequest {
  constructor(readonly reason: string) {}
}

/**
 * A copy of `definition` whose `service` decodes requests without throwing, yielding {@link MalformedRequest}s; a frame
 * whose known fields carry the wrong wire type is one (see checkWireTypes). `requestTypeOf` names each method's type.
 */
export function withTolerantDecoders(
  definition: PackageDefinition,
  service: string,
  requestTypeOf: (method: string) => protobuf.Type | undefined,
): PackageDefinition {
  const methods = definition[service] as ServiceDefinition;
  const tolerant = Object.fromEntries(
    Object.entries(methods).map(([name, method]): [string, MethodDefinition<object, object>] => {
      const requestType = requestTypeOf(name);
      return [name, { ...method, requestDeserialize: tolerantDeserializer(method.requestDeserialize, requestType) }];
    }),
  );
  return { ...definition, [service]: tolerant as ServiceDefinition };
}

/** `deserialize`, yielding a {@link MalformedRequest} where it would throw (or where checkWireTypes finds `type` misread). */
export function tolerantDeserializer<T>(
  deserialize: (bytes: Buffer) => T,
  type?: protobuf.Type,
): (bytes: Buffer) => T | MalformedRequest {
  return (bytes) => {
    try {
      if (type) checkWireTypes(type, bytes);
      return deserialize(bytes);
    } catch (error) {
      return new MalformedRequest(error instanceof Error ? error.message : String(error));
    }
  };
}
