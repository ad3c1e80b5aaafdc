import 'reflect-metadata';
import type { DynamicModule } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  A2aMessages,
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  apiKeyScheme,
  complete,
  InvalidA2aOptionsError,
  InvalidSecurityConfigError,
  type A2aModuleOptions,
  type A2aSecurityOptions,
  type ApiKeySchemeOptions,
} from '../../../libs/a2a/src/index.js';
import { InMemoryTaskStore, type TaskLeases } from '../../../libs/a2a/src/store.js';

/**
 * Timing and cap options are checked at bootstrap: a value that is not a positive duration would make replicas renew
 * or reap without pause, or refuse every message.
 */
@AgentSkill({ id: 'only', name: 'Only', description: 'Completes', tags: ['test'] })
class OnlySkill extends A2aSkillHandler {
  handle() {
    return [complete()];
  }
}

/** An in-memory store that says it is shared, so the engine sets up leases. */
function sharedStore(): InMemoryTaskStore {
  const leases: TaskLeases = {
    acquire: async () => undefined,
    renew: async () => [],
    release: async () => undefined,
    holder: async () => undefined,
    claimExpired: async () => [],
  };
  return Object.assign(new InMemoryTaskStore(), { leases });
}

async function bootError(options: Partial<A2aModuleOptions>): Promise<unknown> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      A2aModule.forRoot({
        card: { name: 'Checked', description: 'Options checked at boot' },
        security: { allowAnonymous: true },
        ...options,
      }),
    ],
    providers: [OnlySkill],
  })
    .compile()
    .catch((error: unknown) => error);
  if (moduleRef instanceof Error) return moduleRef;
  const app = (
    moduleRef as Awaited<ReturnType<ReturnType<typeof Test.createTestingModule>['compile']>>
  ).createNestApplication({ logger: false });
  try {
    await app.init();
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await app.close().catch(() => undefined);
  }
}

describe('options checked at bootstrap', () => {
  it.each([
    ['leaseTtlMs', { leaseTtlMs: 0 }, A2aMessages.invalidOption('leaseTtlMs', 0, 'a whole number of ms, 1 or more')],
    ['leaseTtlMs', { leaseTtlMs: -5 }, A2aMessages.invalidOption('leaseTtlMs', -5, 'a whole number of ms, 1 or more')],
    [
      'leaseTtlMs',
      { leaseTtlMs: Number.NaN },
      A2aMessages.invalidOption('leaseTtlMs', Number.NaN, 'a whole number of ms, 1 or more'),
    ],
    [
      'leaseRenewMs',
      { leaseTtlMs: 900, leaseRenewMs: 900 },
      A2aMessages.invalidOption('leaseRenewMs', 900, 'less than leaseTtlMs (900)'),
    ],
    [
      'leaseRenewMs',
      { leaseRenewMs: 0.5 },
      A2aMessages.invalidOption('leaseRenewMs', 0.5, 'a whole number of ms, 1 or more'),
    ],
  ])('refuses %s %j with a store replicas share', async (_name, options, message) => {
    expect(((await bootError({ ...options, taskStore: sharedStore() })) as Error).message).toBe(message);
  });

  it('boots with sound lease timings', async () => {
    expect(await bootError({ leaseTtlMs: 900, leaseRenewMs: 300, taskStore: sharedStore() })).toBeUndefined();
  });

  it('refuses unsound lease timings without a shared store too, so moving to one later does not stop the app', async () => {
    expect(((await bootError({ leaseTtlMs: -1 })) as Error).message).toBe(
      A2aMessages.invalidOption('leaseTtlMs', -1, 'a whole number of ms, 1 or more'),
    );
  });

  it.each([-1, Number.POSITIVE_INFINITY, Number.NaN])('refuses shutdownGraceMs %p', async (value) => {
    expect(((await bootError({ shutdownGraceMs: value })) as Error).message).toBe(
      A2aMessages.invalidOption('shutdownGraceMs', value, 'a number of ms, 0 or more'),
    );
  });

  it.each([0, -3, 1.5])('refuses security.maxActiveTasksPerPrincipal %p', async (value) => {
    const error = (await bootError({ security: { allowAnonymous: true, maxActiveTasksPerPrincipal: value } })) as Error;
    expect(error.message).toBe(
      A2aMessages.invalidOption('security.maxActiveTasksPerPrincipal', value, 'a whole number, 1 or more'),
    );
  });

  it.each(['isolated ', 'open', true])('refuses security.anonymousCallers %p', async (value) => {
    const error = (await bootError({
      security: { allowAnonymous: true, anonymousCallers: value as A2aSecurityOptions['anonymousCallers'] },
    })) as Error;
    expect(error).toBeInstanceOf(InvalidA2aOptionsError);
    expect(error.message).toMatch(/^A2aModule option security\.anonymousCallers /);
  });

  it.each(['anonymous', 'app', 'user'])(
    'refuses a security scheme named %s: the owner-key namespace of principals no scheme made',
    async (name) => {
      const error = (await bootError({
        security: {
          schemes: { [name]: apiKeyScheme({ in: 'header', name: 'X-API-Key', keys: { alice: 'key-alice-0001' } }) },
        },
      })) as Error;
      expect(error).toBeInstanceOf(InvalidSecurityConfigError);
      expect(error.message).toBe(A2aMessages.reservedSchemeName(name, ['anonymous', 'app', 'user']));
    },
  );
});

/** Boots the module `a2aModule` makes; what it threw, building the module or at bootstrap (undefined if it booted). */
async function moduleBootError(a2aModule: () => DynamicModule): Promise<unknown> {
  try {
    const moduleRef = await Test.createTestingModule({ imports: [a2aModule()], providers: [OnlySkill] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    try {
      await app.init();
      return undefined;
    } finally {
      await app.close().catch(() => undefined);
    }
  } catch (error) {
    return error;
  }
}

describe('mistakes that used to boot stop the app, through forRoot and forRootAsync', () => {
  const card = { name: 'Checked', description: 'Options checked at boot' };
  const apiKey = (options: Partial<ApiKeySchemeOptions>) =>
    apiKeyScheme({ in: 'header', name: 'X-API-Key', keys: { alice: 'key-a' }, ...options } as ApiKeySchemeOptions);
  const cases: Array<[string, () => A2aModuleOptions, RegExp]> = [
    [
      'an API key from an unset environment variable',
      () => ({
        card,
        security: { schemes: { apiKey: apiKey({ keys: { alice: process.env.NESTJS_A2A_UNSET_TEST_KEY! } }) } },
      }),
      new RegExp(`^${escape(A2aMessages.invalidSecret('apiKeyScheme', 'keys.alice', undefined))}$`),
    ],
    [
      'a baseUrl without a scheme',
      () => ({ card, baseUrl: 'localhost:3000' }),
      /^A2aModule option baseUrl is "localhost:3000"; it must be an absolute http\(s\) URL/,
    ],
    [
      "an API key location 'headers'",
      () => ({ card, security: { schemes: { apiKey: apiKey({ in: 'headers' as 'header' }) } } }),
      /^apiKeyScheme option in is "headers"; it must be one of "header", "query", "cookie"/,
    ],
    [
      'a misspelt security.schemes',
      () => ({ card, security: { scheme: { apiKey: apiKey({}) } } as A2aSecurityOptions }),
      /^A2aModule option security\.scheme is not an option \(misspelt\?\)/,
    ],
    [
      'a card without description',
      () => ({ card: { name: 'No description' } as A2aModuleOptions['card'] }),
      /^A2aModule option card\.description is undefined; it must be a non-empty string/,
    ],
  ];

  it.each(cases)('forRoot: %s', async (_name, options, message) => {
    const error = await moduleBootError(() => A2aModule.forRoot(options()));
    expect(error).toBeInstanceOf(InvalidA2aOptionsError);
    expect((error as Error).message).toMatch(message);
  });

  it.each(cases)('forRootAsync: %s', async (_name, options, message) => {
    const error = await moduleBootError(() => A2aModule.forRootAsync({ useFactory: async () => options() }));
    expect(error).toBeInstanceOf(InvalidA2aOptionsError);
    expect((error as Error).message).toMatch(message);
  });

  it('boots the same options when they are right, both ways', async () => {
    const options = () => ({ card, baseUrl: 'http://localhost:3000', security: { schemes: { apiKey: apiKey({}) } } });
    expect(await moduleBootError(() => A2aModule.forRoot(options()))).toBeUndefined();
    expect(await moduleBootError(() => A2aModule.forRootAsync({ useFactory: async () => options() }))).toBeUndefined();
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
