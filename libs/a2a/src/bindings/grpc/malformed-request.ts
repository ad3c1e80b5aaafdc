import type { MethodDefinition, PackageDefinition, ServiceDefinition } from '@grpc/proto-loader';

/**
 * Stands in for a request whose bytes do not decode as the method's message. `@grpc/grpc-js` would answer such a frame
 * itself with INTERNAL; handing this to the handler instead lets the binding answer INVALID_ARGUMENT, the status the
 * error table gives a parse error, through the same pipeline (and exception filters) as every other failure.
 */
export class MalformedRequest {
  constructor(readonly reason: string) {}
}

/** A copy of `definition` whose `service` decodes requests without throwing, yielding {@link MalformedRequest}s. */
export function withTolerantDecoders(definition: PackageDefinition, service: string): PackageDefinition {
  const methods = definition[service] as ServiceDefinition;
  const tolerant = Object.fromEntries(
    Object.entries(methods).map(([name, method]): [string, MethodDefinition<object, object>] => [
      name,
      {
        ...method,
        requestDeserialize: (bytes: Buffer) => {
          try {
            return method.requestDeserialize(bytes);
          } catch (error) {
            return new MalformedRequest(error instanceof Error ? error.message : String(error));
          }
        },
      },
    ]),
  );
  return { ...definition, [service]: tolerant as ServiceDefinition };
}
