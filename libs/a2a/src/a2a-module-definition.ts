import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { A2aModuleExtras, A2aModuleOptions } from './a2a-module.options.js';

export const DEFAULT_EXTRAS: Required<Omit<A2aModuleExtras, 'router'>> = {
  jsonRpc: { path: '/a2a/jsonrpc' },
  rest: { path: '/a2a/rest' },
  bindings: [],
  guards: [],
  interceptors: [],
  filters: [],
  isGlobal: false,
};

export const {
  ConfigurableModuleClass,
  MODULE_OPTIONS_TOKEN: A2A_MODULE_OPTIONS,
  OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<A2aModuleOptions>()
  .setClassMethodName('forRoot')
  .setExtras<A2aModuleExtras>(DEFAULT_EXTRAS, (definition, extras) => ({ ...definition, global: extras.isGlobal }))
  .build();

/** The module's extras (static options), for the providers that need them at run time (guards, interceptors). */
export const A2A_MODULE_EXTRAS = Symbol('A2A_MODULE_EXTRAS');
