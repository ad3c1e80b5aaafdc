import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { A2aPushReceiverExtras, A2aPushReceiverOptions } from './push-receiver.options.js';

export const {
  ConfigurableModuleClass: PushReceiverConfigurableModule,
  MODULE_OPTIONS_TOKEN: A2A_PUSH_RECEIVER_OPTIONS,
  OPTIONS_TYPE: PUSH_RECEIVER_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: PUSH_RECEIVER_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<A2aPushReceiverOptions>()
  .setClassMethodName('register')
  .setExtras<A2aPushReceiverExtras>({ isGlobal: false }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal,
  }))
  .build();

/** The options checked, with defaults applied (ResolvedPushReceiverOptions). */
export const PUSH_RECEIVER_SETTINGS = Symbol('PUSH_RECEIVER_SETTINGS');
