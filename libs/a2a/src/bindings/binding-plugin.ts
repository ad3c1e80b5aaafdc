import type { Provider, Type } from '@nestjs/common';

/**
 * A protocol binding as A2aModule composes it: its controllers and providers join the module's own, where they reach
 * the engine, the card and the options. JSON-RPC and HTTP+JSON are built-in plugins (on by default, served on the
 * app's HTTP server); others ship outside the core entry point so that their packages stay optional, like the gRPC
 * binding of `nestjs-a2a/grpc` (`grpcBinding(…)`). The core never imports an optional plugin's code.
 */
export interface A2aBindingPlugin {
  /** The binding's name in `supportedInterfaces` (e.g. `GRPC`). */
  readonly protocolBinding: string;
  readonly controllers: readonly Type[];
  readonly providers: readonly Provider[];
}
