import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import {
  A2aMessages,
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  apiKeyScheme,
  complete,
  InMemoryTaskStore,
  InvalidSecurityConfigError,
  type A2aModuleOptions,
  type A2aSecurityOptions,
  type TaskLeases,
} from '../../libs/a2a/src/index.js';

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
  const leases: TaskLeases = { acquire: async () => undefined, renew: async () => [], release: async () => undefined, holder: async () => undefined, claimExpired: async () => [] };
  return Object.assign(new InMemoryTaskStore(), { leases });
}

async function bootError(options: Partial<A2aModuleOptions>): Promise<unknown> {
  const moduleRef = await Test.createTestingModule({
    imports: [A2aModule.forRoot({ card: { name: 'Checked', description: 'Options checked at boot' }, security: { allowAnonymous: true }, ...options })],
    providers: [OnlySkill],
  })
    .compile()
    .catch((error: unknown) => error);
  if (moduleRef instanceof Error) return moduleRef;
  const app = (moduleRef as Awaited<ReturnType<ReturnType<typeof Test.createTestingModule>['compile']>>).createNestApplication({ logger: false });
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
    ['leaseTtlMs', { leaseTtlMs: Number.NaN }, A2aMessages.invalidOption('leaseTtlMs', Number.NaN, 'a whole number of ms, 1 or more')],
    ['leaseRenewMs', { leaseTtlMs: 900, leaseRenewMs: 900 }, A2aMessages.invalidOption('leaseRenewMs', 900, 'less than leaseTtlMs (900)')],
    ['leaseRenewMs', { leaseRenewMs: 0.5 }, A2aMessages.invalidOption('leaseRenewMs', 0.5, 'a whole number of ms, 1 or more')],
  ])('refuses %s %j with a store replicas share', async (_name, options, message) => {
    expect(((await bootError({ ...options, taskStore: sharedStore() })) as Error).message).toBe(message);
  });

  it('boots with sound lease timings, and ignores them without a shared store', async () => {
    expect(await bootError({ leaseTtlMs: 900, leaseRenewMs: 300, taskStore: sharedStore() })).toBeUndefined();
    expect(await bootError({ leaseTtlMs: -1 })).toBeUndefined();
  });

  it.each([-1, Number.POSITIVE_INFINITY, Number.NaN])('refuses shutdownGraceMs %p', async (value) => {
    expect(((await bootError({ shutdownGraceMs: value })) as Error).message).toBe(A2aMessages.invalidOption('shutdownGraceMs', value, 'a number of ms, 0 or more'));
  });

  it.each([0, -3, 1.5])('refuses security.maxActiveTasksPerPrincipal %p', async (value) => {
    const error = (await bootError({ security: { allowAnonymous: true, maxActiveTasksPerPrincipal: value } })) as Error;
    expect(error.message).toBe(A2aMessages.invalidOption('security.maxActiveTasksPerPrincipal', value, 'a whole number, 1 or more'));
  });

  it.each(['isolated ', 'open', true])('refuses security.anonymousCallers %p', async (value) => {
    const error = (await bootError({ security: { allowAnonymous: true, anonymousCallers: value as A2aSecurityOptions['anonymousCallers'] } })) as Error;
    expect(error).toBeInstanceOf(InvalidSecurityConfigError);
    expect(error.message).toBe(A2aMessages.invalidOption('security.anonymousCallers', value, "'isolated' or 'shared'"));
  });

  it.each(['anonymous', 'app', 'user'])('refuses a security scheme named %s: the owner-key namespace of principals no scheme made', async (name) => {
    const error = (await bootError({ security: { schemes: { [name]: apiKeyScheme({ in: 'header', name: 'X-API-Key', keys: { alice: 'key-alice-0001' } }) } } })) as Error;
    expect(error).toBeInstanceOf(InvalidSecurityConfigError);
    expect(error.message).toBe(A2aMessages.reservedSchemeName(name, ['anonymous', 'app', 'user']));
  });
});
