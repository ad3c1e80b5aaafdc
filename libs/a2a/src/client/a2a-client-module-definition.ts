import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { A2aClientModuleExtras, A2aClientModuleOptions } from './a2a-client.options.js';

/** The module class `A2aClientModule` extends, its options token, and the option types of `register` / `registerAsync`. */
export const {
  ConfigurableModuleClass: A2aClientConfigurableModule,
  MODULE_OPTIONS_TOKEN: A2A_CLIENT_OPTIONS,
  OPTIONS_TYPE: A2A_CLIENT_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: A2A_CLIENT_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<A2aClientModuleOptions>()
  .setClassMethodName('register')
  .setExtras<A2aClientModuleExtras>({ isGlobal: false }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal,
  }))
  .build();
