import { Module, type DynamicModule } from '@nestjs/common';
import { A2aPushEvents } from './a2a-push-events.service.js';
import { PushEventHub } from './push-event.hub.js';
import { PushNotificationEndpoint } from './push-notification.endpoint.js';
import {
  A2A_PUSH_RECEIVER_OPTIONS,
  PUSH_RECEIVER_ASYNC_OPTIONS_TYPE,
  PUSH_RECEIVER_OPTIONS_TYPE,
  PUSH_RECEIVER_SETTINGS,
  PushReceiverConfigurableModule,
} from './push-receiver-module-definition.js';
import { resolvePushReceiverOptions } from './push-receiver-options.check.js';
import { PushReceiverRoutes } from './push-receiver.routes.js';

/**
 * The webhook an A2A client gives agents for push notifications (§4.3.3): a POST route that verifies the sender,
 * checks the body is a `StreamResponse`, drops redeliveries, and hands the events to the injectable `A2aPushEvents`.
 *
 * ```ts
 * A2aPushReceiverModule.register({ path: '/a2a/push', tokens: [process.env.PUSH_TOKEN!] })
 * ```
 *
 * The agent is given the webhook in a push notification config: `{ url: 'https://me.example/a2a/push', token }`.
 */
@Module({})
export class A2aPushReceiverModule extends PushReceiverConfigurableModule {
  /** The receiver with options known at import time. */
  static override register(options: typeof PUSH_RECEIVER_OPTIONS_TYPE): DynamicModule {
    return withReceiverParts(super.register(options));
  }

  /** The receiver with options from a factory (e.g. a ConfigService). */
  static override registerAsync(options: typeof PUSH_RECEIVER_ASYNC_OPTIONS_TYPE): DynamicModule {
    return withReceiverParts(super.registerAsync(options));
  }
}

function withReceiverParts(definition: DynamicModule): DynamicModule {
  return {
    ...definition,
    providers: [
      ...(definition.providers ?? []),
      // A factory, so registerAsync's options are checked too, when the app is created.
      { provide: PUSH_RECEIVER_SETTINGS, useFactory: resolvePushReceiverOptions, inject: [A2A_PUSH_RECEIVER_OPTIONS] },
      PushEventHub,
      A2aPushEvents,
      PushNotificationEndpoint,
      PushReceiverRoutes,
    ],
    exports: [A2aPushEvents],
  };
}
