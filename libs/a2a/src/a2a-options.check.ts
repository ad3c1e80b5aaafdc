import type { FactoryProvider, Provider } from '@nestjs/common';
import { A2A_MODULE_OPTIONS } from './a2a-module-definition.js';
import type { A2aModuleOptions } from './a2a-module.options.js';
import { checkOptions, OptionPath } from './a2a-options.rules.js';
import { A2A_EXTRAS_SCHEMA, A2A_OPTIONS_SCHEMA } from './a2a-options.schema.js';
import { A2aMessages } from './a2a.messages.js';
import { InvalidA2aOptionsError } from './errors/invalid-a2a-options.error.js';

/** forRootAsync's own keys (ConfigurableModuleBuilder's), beside the static options. */
const ASYNC_KEYS = ['useFactory', 'useClass', 'useExisting', 'inject', 'imports', 'provideInjectionTokensFrom'];

/**
 * Checks the module options where they are resolved (forRoot's value, or what forRootAsync's factory returns): a
 * mistake stops the app at bootstrap with an InvalidA2aOptionsError naming the option, instead of an agent that
 * publishes a wrong card or answers every call 401.
 */
export function checkA2aOptions(options: unknown, fromFactory: boolean): A2aModuleOptions {
  // forRoot's value keeps the static options its builder does not know (router); a factory has no say in them.
  const misplaced =
    fromFactory &&
    typeof options === 'object' &&
    options !== null &&
    Object.keys(options).find((key) => Object.hasOwn(A2A_EXTRAS_SCHEMA, key));
  if (misplaced) throw new InvalidA2aOptionsError(A2aMessages.staticOptionInFactory(misplaced));
  const own = fromFactory || typeof options !== 'object' || options === null ? options : withoutExtras(options);
  checkOptions(A2A_OPTIONS_SCHEMA, own, 'A2aModule');
  return options as A2aModuleOptions;
}

/**
 * Checks the static options given to forRoot or forRootAsync, when they are given. forRootAsync's other keys must be
 * its own: a module option put there (next to useFactory rather than in what it returns) would be ignored.
 */
export function checkA2aExtras(input: object, async: boolean): void {
  const at = new OptionPath(async ? 'forRootAsync()' : 'A2aModule', '', InvalidA2aOptionsError);
  for (const [key, value] of Object.entries(input)) {
    const rule = A2A_EXTRAS_SCHEMA[key];
    if (rule) {
      if (value !== undefined) rule.check(value, at.key(key));
    } else if (async && !ASYNC_KEYS.includes(key)) {
      throw new InvalidA2aOptionsError(
        A2aMessages.unknownOption(at.owner, key, [...ASYNC_KEYS, ...Object.keys(A2A_EXTRAS_SCHEMA)]),
      );
    }
  }
}

/** The module's providers, its options provider made to check the options as it resolves them. */
export function withCheckedOptions(providers: readonly Provider[]): Provider[] {
  return providers.map((provider): Provider => {
    if (typeof provider !== 'object' || provider.provide !== A2A_MODULE_OPTIONS) return provider;
    if ('useValue' in provider)
      return { provide: A2A_MODULE_OPTIONS, useFactory: () => checkA2aOptions(provider.useValue, false) };
    const factory = provider as FactoryProvider;
    return {
      ...factory,
      useFactory: async (...args: unknown[]) => checkA2aOptions(await factory.useFactory(...args), true),
    };
  });
}

function withoutExtras(options: object): object {
  return Object.fromEntries(Object.entries(options).filter(([key]) => !Object.hasOwn(A2A_EXTRAS_SCHEMA, key)));
}
