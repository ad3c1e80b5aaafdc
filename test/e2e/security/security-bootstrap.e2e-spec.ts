import 'reflect-metadata';
import { Logger, type Type } from '@nestjs/common';
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
  type A2aSecurityOptions,
  type A2aSecurityScheme,
  type AgentSkillOptions,
} from '../../../libs/a2a/src/index.js';
import { A2aError } from '../../../libs/a2a/src/errors/a2a.error.js';
import { CallContextFactory } from '../../../libs/a2a/src/bindings/call-context.factory.js';
import { newInvocation } from '../../../libs/a2a/src/bindings/new-invocation.js';
import { OPERATIONS_BY_NAME } from '../../../libs/a2a/src/bindings/a2a-operations.js';

/** Option `security` is checked at bootstrap (issue 9, item 1), and with it on nothing runs unchecked (fail closed). */

const card = { name: 'Security bootstrap', description: 'Misconfigured on purpose' };
const apiKey = apiKeyScheme({ in: 'header', name: 'X-API-Key', keys: { alice: 'key-a' } });

function skillClass(options: Partial<AgentSkillOptions> = {}): Type {
  class TestSkill extends A2aSkillHandler {
    handle() {
      return [complete()];
    }
  }
  AgentSkill({ id: 'only', name: 'Only', description: 'The only skill', tags: ['test'], ...options })(TestSkill);
  return TestSkill;
}

async function boot(
  security: A2aSecurityOptions | undefined,
  skill = skillClass(),
): Promise<{ error?: unknown; warnings: string[]; contexts?: CallContextFactory }> {
  const warnings: string[] = [];
  const logger = {
    log() {},
    error() {},
    warn: (message: unknown) => warnings.push(String(message)),
    debug() {},
    verbose() {},
  };
  // The options are checked as Nest resolves them (compile), the rest at init.
  const moduleRef = await Test.createTestingModule({
    imports: [A2aModule.forRoot({ card, security })],
    providers: [skill],
  })
    .compile()
    .catch((error: unknown) => ({ error }));
  if ('error' in moduleRef) return { error: moduleRef.error, warnings };
  const app = moduleRef.createNestApplication({ logger });
  Logger.overrideLogger(logger);
  try {
    await app.init();
    return { warnings, contexts: app.get(CallContextFactory) };
  } catch (error) {
    return { error, warnings };
  } finally {
    await app.close().catch(() => undefined);
    Logger.overrideLogger(false);
  }
}

describe('option security at bootstrap', () => {
  it('refuses a card requirement naming an undeclared scheme', async () => {
    const { error } = await boot({ schemes: { apiKey }, requirements: [{ bearer: [] }] });
    expect(error).toBeInstanceOf(InvalidSecurityConfigError);
    expect((error as Error).message).toBe(
      A2aMessages.undeclaredScheme('Option security.requirements', 'bearer', ['apiKey']),
    );
  });

  it('refuses an operation requirement naming an undeclared scheme', async () => {
    const { error } = await boot({ schemes: { apiKey }, operations: { CancelTask: [{ oauth: ['admin'] }] } });
    expect((error as Error).message).toBe(
      A2aMessages.undeclaredScheme('Option security.operations.CancelTask', 'oauth', ['apiKey']),
    );
  });

  it('refuses a skill requirement naming an undeclared scheme', async () => {
    const { error } = await boot({ schemes: { apiKey } }, skillClass({ security: [{ bearer: ['x'] }] }));
    expect((error as Error).message).toBe(A2aMessages.undeclaredScheme('@AgentSkill "only"', 'bearer', ['apiKey']));
  });

  it('refuses a skill requirement when no scheme is declared at all', async () => {
    const { error } = await boot(undefined, skillClass({ security: [{ bearer: [] }] }));
    expect(error).toBeInstanceOf(InvalidSecurityConfigError);
  });

  it('refuses option security.skills naming an unknown skill or an undeclared scheme', async () => {
    expect(((await boot({ schemes: { apiKey }, skills: { nope: [{ apiKey: [] }] } })).error as Error).message).toBe(
      A2aMessages.unknownSkill('nope', ['only']),
    );
    expect(((await boot({ schemes: { apiKey }, skills: { only: [{ bearer: [] }] } })).error as Error).message).toBe(
      A2aMessages.undeclaredScheme('Option security.skills.only', 'bearer', ['apiKey']),
    );
  });

  it('refuses a scheme without a verifier', async () => {
    const declarationOnly = { declaration: { mtlsSecurityScheme: {} } } as unknown as A2aSecurityScheme;
    const { error } = await boot({ schemes: { mtls: declarationOnly } });
    expect(error).toBeInstanceOf(InvalidA2aOptionsError);
    expect((error as Error).message).toMatch(
      /^A2aModule option security\.schemes\.mtls is an object; it must be a security scheme from apiKeyScheme\(\)/,
    );
  });

  it('refuses an extended card without any scheme (§13.3)', async () => {
    const { error } = await boot({ extendedCard: true });
    expect((error as Error).message).toBe(A2aMessages.extendedCardWithoutScheme());
  });

  it('warns at boot that an agent without schemes is unauthenticated, unless allowAnonymous says it is on purpose', async () => {
    expect((await boot(undefined)).warnings).toContain(A2aMessages.anonymousAgent());
    expect((await boot({ allowAnonymous: true })).warnings).not.toContain(A2aMessages.anonymousAgent());
    expect((await boot({ schemes: { apiKey } })).warnings).not.toContain(A2aMessages.anonymousAgent());
  });

  it('fails closed: with schemes, an operation the guard did not check is refused', async () => {
    const { contexts, error } = await boot({ schemes: { apiKey } });
    expect(error).toBeUndefined();
    const invocation = newInvocation(
      OPERATIONS_BY_NAME.get('ListTasks')!,
      'JSONRPC',
      {},
      { version: '1.0', extensions: [] },
      {},
    );
    expect(() => contexts!.of(invocation, {})).toThrow(A2aError);
    const open = await boot(undefined);
    expect(open.contexts!.of(invocation, {}).principal.id).toBe('anonymous');
  });
});
