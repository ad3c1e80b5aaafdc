import { Module, type DynamicModule } from '@nestjs/common';
import {
  A2A_CLIENT_ASYNC_OPTIONS_TYPE,
  A2A_CLIENT_OPTIONS_TYPE,
  A2aClientConfigurableModule,
} from './a2a-client-module-definition.js';
import { A2aClient } from './a2a-client.service.js';

/**
 * The client side of A2A: the agents an app calls, by name, through the injectable {@link A2aClient}.
 *
 * ```ts
 * A2aClientModule.register({
 *   agents: { flights: { cardUrl: 'https://flights.example', credentials: { bearer: process.env.FLIGHTS_TOKEN } } },
 *   defaults: { timeoutMs: 10_000 },
 * })
 * // or registerAsync({ imports, inject: [ConfigService], useFactory: (config) => ({ agents: … }) })
 * ```
 */
@Module({})
export class A2aClientModule extends A2aClientConfigurableModule {
  /** The client with its agents known at import time. */
  static override register(options: typeof A2A_CLIENT_OPTIONS_TYPE): DynamicModule {
    return withClient(super.register(options));
  }

  /** The client with its agents from a factory (e.g. a ConfigService). */
  static override registerAsync(options: typeof A2A_CLIENT_ASYNC_OPTIONS_TYPE): DynamicModule {
    return withClient(super.registerAsync(options));
  }
}

function withClient(definition: DynamicModule): DynamicModule {
  return {
    ...definition,
    providers: [...(definition.providers ?? []), A2aClient],
    exports: [...(definition.exports ?? []), A2aClient],
  };
}
