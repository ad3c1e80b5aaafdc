import 'reflect-metadata';
import { Injectable, Module, type LoggerService, type Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { IsInt, IsString } from 'class-validator';
import {
  A2aMessages,
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  complete,
  DuplicateSkillError,
  InvalidSkillClassError,
  type AgentSkillOptions,
  type SkillRouter,
} from '../../../libs/a2a/src/index.js';

const card = { name: 'Bootstrap test', description: 'Misconfigured on purpose' };

/** Boots an app with these providers next to A2aModule and returns what init threw (or undefined). */
async function bootstrapError(providers: Type[], imports: Type[] = []): Promise<unknown> {
  const moduleRef = await Test.createTestingModule({
    imports: [A2aModule.forRoot({ card }), ...imports],
    providers,
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

/** A fresh skill class per test; the computed key gives it `name`, which the error messages quote. */
function skillClass(name: string, options: AgentSkillOptions): Type {
  const type = {
    [name]: class extends A2aSkillHandler {
      handle() {
        return [complete()];
      }
    },
  }[name];
  AgentSkill(options)(type);
  return type;
}

/** Two DTO classes that share the name `Order`, as two feature modules may each declare one. */
function pizzaOrder() {
  class Order {
    @IsString() pizza!: string;
  }
  return Order;
}
function flightOrder() {
  class Order {
    @IsInt() seats!: number;
  }
  return Order;
}

const valid = (id: string): AgentSkillOptions => ({ id, name: id, description: `The ${id} skill`, tags: ['test'] });

describe('bootstrap errors', () => {
  it('boots with well-formed skills', async () => {
    expect(
      await bootstrapError([skillClass('EchoSkill', valid('echo')), skillClass('ShoutSkill', valid('shout'))]),
    ).toBeUndefined();
  });

  it('rejects two skills with the same id (DuplicateSkillError)', async () => {
    const error = await bootstrapError([
      skillClass('FirstSkill', valid('echo')),
      skillClass('SecondSkill', valid('echo')),
    ]);
    expect(error).toBeInstanceOf(DuplicateSkillError);
    expect((error as Error).message).toBe(A2aMessages.duplicateSkill('echo', 'FirstSkill', 'SecondSkill'));
  });

  it('finds duplicates across modules too', async () => {
    @Module({ providers: [skillClass('ElsewhereSkill', valid('echo'))] })
    class OtherModule {}
    const error = await bootstrapError([skillClass('EchoSkill', valid('echo'))], [OtherModule]);
    expect(error).toBeInstanceOf(DuplicateSkillError);
    expect((error as Error).message).toMatch(/"echo".*EchoSkill|"echo".*ElsewhereSkill/);
  });

  it('rejects an @AgentSkill class that does not extend A2aSkillHandler (InvalidSkillClassError)', async () => {
    @AgentSkill(valid('loose'))
    class LooseSkill {
      handle() {
        return [complete()];
      }
    }
    const error = await bootstrapError([LooseSkill]);
    expect(error).toBeInstanceOf(InvalidSkillClassError);
    expect((error as Error).message).toBe(A2aMessages.invalidSkillClass('LooseSkill'));
  });

  it.each([
    ['missing tags', { tags: undefined }, '"tags" needs at least one tag'],
    ['empty tags', { tags: [] }, '"tags" needs at least one tag'],
    ['an empty name', { name: ' ' }, '"name" must be a non-empty string'],
    ['a missing description', { description: undefined }, '"description" must be a non-empty string'],
    ['an empty id', { id: '' }, '"id" must be a non-empty string'],
  ])('rejects a skill with %s (InvalidSkillClassError)', async (_label, override, problem) => {
    const options = { ...valid('broken'), ...override } as AgentSkillOptions;
    const error = await bootstrapError([skillClass('BrokenSkill', options)]);
    expect(error).toBeInstanceOf(InvalidSkillClassError);
    expect((error as Error).message).toBe(A2aMessages.invalidSkillMetadata('BrokenSkill', problem));
  });

  it('rejects two skills marked default', async () => {
    const error = await bootstrapError([
      skillClass('OneSkill', { ...valid('one'), default: true }),
      skillClass('TwoSkill', { ...valid('two'), default: true }),
    ]);
    expect(error).toBeInstanceOf(InvalidSkillClassError);
    expect((error as Error).message).toBe(A2aMessages.twoDefaultSkills('one', 'two'));
  });

  it('rejects two skills whose different input classes share a name, naming both skills and the class', async () => {
    const error = await bootstrapError([
      skillClass('PizzaSkill', { ...valid('pizza'), input: pizzaOrder() }),
      skillClass('FlightSkill', { ...valid('flight'), input: flightOrder() }),
    ]);
    expect(error).toBeInstanceOf(InvalidSkillClassError);
    expect((error as Error).message).toBe(A2aMessages.inputClassNameClash('Order', 'pizza', 'flight'));
  });

  it('boots with one input class shared by two skills', async () => {
    const Order = pizzaOrder();
    expect(
      await bootstrapError([
        skillClass('PizzaSkill', { ...valid('pizza'), input: Order }),
        skillClass('OtherPizzaSkill', { ...valid('other-pizza'), input: Order }),
      ]),
    ).toBeUndefined();
  });

  it('rejects an agent without any skill', async () => {
    const error = await bootstrapError([]);
    expect(error).toBeInstanceOf(InvalidSkillClassError);
    expect((error as Error).message).toBe(A2aMessages.noSkills());
  });
});

/** The app's logger, keeping what was warned. */
class CapturingLogger implements LoggerService {
  readonly warnings: string[] = [];
  log() {}
  error() {}
  warn(message: unknown) {
    this.warnings.push(String(message));
  }
}

@Injectable()
class FirstSkillRouter implements SkillRouter {
  route() {
    return 'one';
  }
}

/** Boots an app with these skills and returns what its logger warned. */
async function bootWarnings(skills: Type[], router?: Type<SkillRouter>): Promise<string[]> {
  const moduleRef = await Test.createTestingModule({
    imports: [A2aModule.forRoot({ card, ...(router ? { router } : {}) })],
    providers: skills,
  }).compile();
  const logger = new CapturingLogger();
  const app = moduleRef.createNestApplication({ logger });
  try {
    await app.init();
    return logger.warnings;
  } finally {
    await app.close();
  }
}

describe('boot warnings', () => {
  const aboutRouting = (warnings: string[]) => warnings.filter((warning) => warning.includes('no default skill'));

  it('warns when several skills have neither a router nor a default skill, naming the skills and both remedies', async () => {
    const warnings = await bootWarnings([skillClass('OneSkill', valid('one')), skillClass('TwoSkill', valid('two'))]);
    expect(aboutRouting(warnings)).toEqual([A2aMessages.noDefaultSkill(['one', 'two'])]);
    expect(aboutRouting(warnings)[0]).toContain('@AgentSkill({ default: true })');
    expect(aboutRouting(warnings)[0]).toContain('A2aModule.forRoot({ router })');
  });

  it.each([
    [
      'a default skill',
      () => [skillClass('OneSkill', { ...valid('one'), default: true }), skillClass('TwoSkill', valid('two'))],
    ],
    ['a single skill', () => [skillClass('OneSkill', valid('one'))]],
  ])('does not warn with %s', async (_, skills) => {
    expect(aboutRouting(await bootWarnings(skills()))).toEqual([]);
  });

  it('does not warn with a router', async () => {
    const skills = [skillClass('OneSkill', valid('one')), skillClass('TwoSkill', valid('two'))];
    expect(aboutRouting(await bootWarnings(skills, FirstSkillRouter))).toEqual([]);
  });
});
