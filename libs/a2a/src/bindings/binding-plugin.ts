import type { Provider, Type } from '@nestjs/common';

/**
 * A binding that ships outside the core entry point, so that its packages stay optional: the gRPC binding of
 * `nestjs-a2a/grpc` (`grpcBinding(…)`). A2aModule adds its controllers and providers to its own, where they reach the
 * engine, the card and the options like the built-in bindings do; the core never imports a plugin's code.
 */
export interface A2aBindingPlugin {
  /** The binding's name in `supportedInterfaces` (e.g. `GRPC`). */
  readonly protocolBinding: string;
  readonly controllers: readonly Type[];
  readonly providers: readonly Provider[];
}
