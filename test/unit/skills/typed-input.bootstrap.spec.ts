import 'reflect-metadata';
import { jest } from '@jest/globals';

/**
 * Bootstrap of an app whose skill declares a typed input while class-validator-jsonschema is not installed: the module
 * is mocked as missing (as Node reports it, ERR_MODULE_NOT_FOUND) before the library is imported, so the library's
 * own `import()` at bootstrap meets it. The library must load without it, and bootstrap must fail with its typed error.
 */
jest.unstable_mockModule('class-validator-jsonschema', () => {
  throw Object.assign(new Error("Cannot find package 'class-validator-jsonschema'"), { code: 'ERR_MODULE_NOT_FOUND' });
});

const { Test } = await import('@nestjs/testing');
const { A2aMessages, A2aModule } = await import('../../../libs/a2a/src/index.js');
const { SkillInputPackagesMissingError } = await import('../../../libs/a2a/src/errors/skill-bootstrap.errors.js');
const { PIZZA_SKILL_ID, PizzaSkill, PlainSkill } = await import('../../fixtures/typed-input.fixtures.js');

async function boot(providers: unknown[]): Promise<unknown> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      A2aModule.forRoot({ card: { name: 'Typed', description: 'Typed inputs' }, security: { allowAnonymous: true } }),
    ],
    providers: providers as never[],
  }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  try {
    await app.init();
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await app.close().catch(() => undefined);
  }
}

describe('typed inputs without their optional peers', () => {
  it('boots an app whose skills declare no input', async () => {
    expect(await boot([PlainSkill])).toBeUndefined();
  });

  it('fails bootstrap with SkillInputPackagesMissingError when a skill declares one', async () => {
    const error = await boot([PlainSkill, PizzaSkill]);
    expect(error).toBeInstanceOf(SkillInputPackagesMissingError);
    expect((error as Error).message).toBe(
      A2aMessages.skillInputPackagesMissing(PIZZA_SKILL_ID, ['class-validator-jsonschema']),
    );
  });
});
