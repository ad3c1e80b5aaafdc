import 'reflect-metadata';
import { IsString } from 'class-validator';
import {
  A2aError,
  A2aMessages,
  InvalidSkillClassError,
  type AgentSkillOptions,
  type Message,
} from '../../../libs/a2a/src/index.js';
import { SkillInputPackagesMissingError } from '../../../libs/a2a/src/errors/skill-bootstrap.errors.js';
import {
  compileSkillInput,
  declaresInput,
  inputSchemaOf,
  invalidInputError,
  violationsOf,
} from '../../../libs/a2a/src/skills/skill-input.compiler.js';
import { loadSkillInputPackages, type SkillInputPackages } from '../../../libs/a2a/src/skills/skill-input.packages.js';
import type { SkillInput, SkillInputResult } from '../../../libs/a2a/src/skills/skill-input.js';
import { parseTrip, PizzaOrder, TripBudget, TripInput, TripTraveller } from '../../fixtures/typed-input.fixtures.js';
import { schemaAccepts, schemaProblems } from '../../fixtures/typed-input.schema-check.js';

const skill = (options: Partial<AgentSkillOptions>): AgentSkillOptions => ({
  id: 'test',
  name: 'Test',
  description: 'A test skill',
  tags: ['t'],
  ...options,
});
const message = (...parts: Message['parts']): Message => ({ messageId: 'm1', role: 'ROLE_USER', parts });
const invalid = (result: SkillInputResult) => (result.valid ? [] : result.violations);

const ADA = { name: 'Ada', age: 36 };

describe('typed skill inputs', () => {
  let packages: SkillInputPackages;
  let trip: SkillInput;
  let pizza: SkillInput;

  beforeAll(async () => {
    packages = await loadSkillInputPackages('test');
    trip = compileSkillInput('TripSkill', skill({ input: TripInput, parseText: parseTrip }), packages);
    pizza = compileSkillInput('PizzaSkill', skill({ input: PizzaOrder, onInvalidInput: 'input-required' }), packages);
  });

  const read = (input: SkillInput, ...parts: Message['parts']) => input.read(message(...parts), { history: [] });

  describe('reading', () => {
    it('transforms a valid data part into instances, nested ones included, with class defaults for absent fields', async () => {
      const result = await read(trip, {
        data: { destination: 'Lisbon', travellers: [ADA], budget: { amount: 900, currency: 'EUR' } },
      });
      expect(result.valid).toBe(true);
      const value = (result as { value: TripInput }).value;
      expect(value).toBeInstanceOf(TripInput);
      expect(value.travellers[0]).toBeInstanceOf(TripTraveller);
      expect(value.budget).toBeInstanceOf(TripBudget);
      expect({ ...value }).toEqual({
        destination: 'Lisbon',
        nights: 1,
        travellers: [ADA],
        budget: { amount: 900, currency: 'EUR' },
      });
    });

    it('reads the first data part, whatever the text says and whatever data parts follow', async () => {
      const result = await read(
        trip,
        { text: 'trip to Rome, 2 nights, Bob:20' },
        { data: { destination: 'Oslo', travellers: [ADA] } },
        { data: { destination: 'Bergen' } },
      );
      expect(result).toMatchObject({ valid: true, value: { destination: 'Oslo', nights: 1 } });
    });

    it('without a data part, validates what parseText makes of the text, and gives parseText the history', async () => {
      const seen: unknown[] = [];
      const history = [message({ text: 'earlier' })];
      const input = compileSkillInput(
        'TripSkill',
        skill({ input: TripInput, parseText: (text, context) => (seen.push(context.history), parseTrip(text)) }),
        packages,
      );
      const result = await input.read(message({ text: 'trip to Rome, 2 nights, Bob:20, Eve:31' }), { history });
      expect(result).toMatchObject({
        valid: true,
        value: {
          destination: 'Rome',
          nights: 2,
          travellers: [
            { name: 'Bob', age: 20 },
            { name: 'Eve', age: 31 },
          ],
        },
      });
      expect(seen).toEqual([history]);
    });

    it('without a data part or a parser, validates {}: every required field is a violation', async () => {
      expect(invalid(await read(pizza, { text: 'one margherita please' })).map((v) => v.field)).toEqual([
        'pizza',
        'quantity',
        'quantity',
        'quantity',
      ]);
    });

    it.each([[[ADA]], ['Lisbon'], [null], [42]])('refuses a data part that is no object (%j)', async (data) => {
      expect(invalid(await read(trip, { data }))).toEqual([
        { field: '', description: 'The input must be a JSON object' },
      ]);
    });

    it('names every violation by its path in the input: nested properties dotted, array items in brackets', async () => {
      const result = await read(trip, {
        data: {
          destination: '',
          nights: 2.5,
          travellers: [
            { name: 'Ada', age: 36, nickname: 'A' },
            { name: 7, age: -1 },
          ],
          budget: { amount: 10, currency: 'GBP' },
          extra: true,
        },
      });
      expect(invalid(result)).toEqual([
        { field: 'extra', description: 'property extra should not exist' },
        { field: 'destination', description: 'destination should not be empty' },
        { field: 'nights', description: 'nights must be an integer number' },
        { field: 'travellers[0].nickname', description: 'property nickname should not exist' },
        { field: 'travellers[1].name', description: 'name must be shorter than or equal to 50 characters' },
        { field: 'travellers[1].name', description: 'name must be a string' },
        { field: 'travellers[1].age', description: 'age must not be less than 0' },
        { field: 'budget.currency', description: 'currency must be one of the following values: EUR, USD' },
      ]);
      expect(result).toMatchObject({ given: { destination: '', extra: true } });
    });

    it('refuses a string where a nested object belongs, without transforming it', async () => {
      expect(
        invalid(await read(trip, { data: { destination: 'Lisbon', travellers: ['Ada'] } })).map((v) => v.field),
      ).toEqual(['travellers[0]']);
    });

    it('does not take a __proto__ key for the prototype', async () => {
      const data = JSON.parse(
        '{"destination":"Lisbon","travellers":[{"name":"Ada","age":36}],"__proto__":{"nights":9}}',
      ) as Record<string, unknown>;
      const result = await read(trip, { data: data as never });
      expect(result).toMatchObject({ valid: true, value: { nights: 1 } });
      expect(Object.getPrototypeOf((result as { value: object }).value)).toBe(TripInput.prototype);
    });
  });

  describe('violations', () => {
    it('lists at most 100, then says how many more there were', () => {
      const errors = Array.from({ length: 60 }, (_, i) => ({
        property: `f${i}`,
        constraints: { a: `f${i} a`, b: `f${i} b` },
      }));
      const violations = violationsOf(errors);
      expect(violations).toHaveLength(101);
      expect(violations[99]).toEqual({ field: 'f49', description: 'f49 b' });
      expect(violations[100]).toEqual({ field: '', description: '20 more violations not listed' });
    });

    it('walks a deep error tree without recursion', () => {
      let error: { property: string; value?: unknown; constraints?: Record<string, string>; children?: unknown[] } = {
        property: 'leaf',
        constraints: { x: 'bad' },
      };
      for (let i = 0; i < 20_000; i++) error = { property: 'next', value: {}, children: [error] };
      const [violation] = violationsOf([error as never]);
      expect(violation.field).toMatch(/^next(\.next)+\.leaf$/);
    });

    it("mode 'reject': InvalidParams with every violation in a BadRequest and the skill in the ErrorInfo", () => {
      const error = invalidInputError('plan-trip', [
        { field: 'travellers[1].age', description: 'age must not be less than 0' },
        { field: '', description: 'The input must be a JSON object' },
      ]);
      expect(error).toBeInstanceOf(A2aError);
      expect(error.kind).toBe('InvalidParams');
      expect(error.message).toBe(
        A2aMessages.invalidSkillInput(
          'plan-trip',
          'travellers[1].age: age must not be less than 0; The input must be a JSON object',
        ),
      );
      expect(error.details()).toEqual([
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'INVALID_PARAMS',
          domain: 'a2a-protocol.org',
          metadata: { skillId: 'plan-trip' },
        },
        {
          '@type': 'type.googleapis.com/google.rpc.BadRequest',
          fieldViolations: [
            { field: 'travellers[1].age', description: 'age must not be less than 0' },
            { field: '', description: 'The input must be a JSON object' },
          ],
        },
      ]);
    });

    it("mode 'input-required': INPUT_REQUIRED with a question and the violations as a data part", async () => {
      const result = await read(pizza, { data: { pizza: 'margherita', quantity: 0 } });
      expect(pizza.invalidEvent(result as never)).toEqual({
        kind: 'status',
        state: 'TASK_STATE_INPUT_REQUIRED',
        message: [
          { text: A2aMessages.invalidInputQuestion('quantity: quantity must not be less than 1') },
          {
            data: { fieldViolations: [{ field: 'quantity', description: 'quantity must not be less than 1' }] },
            mediaType: 'application/json',
          },
        ],
      });
    });

    it('asks its own question when the skill gives invalidInputMessage', async () => {
      const asked: unknown[] = [];
      const input = compileSkillInput(
        'PizzaSkill',
        skill({
          input: PizzaOrder,
          onInvalidInput: 'input-required',
          invalidInputMessage: (violations, given) => (asked.push([violations.length, given]), 'How many?'),
        }),
        packages,
      );
      const result = await read(input, { data: { pizza: 'diavola' } });
      const event = input.invalidEvent(result as never);
      expect((event.message as Array<{ text?: string }>)[0]).toEqual({ text: 'How many?' });
      expect(asked).toEqual([[3, { pizza: 'diavola' }]]);
    });
  });

  describe('the JSON Schema', () => {
    it('is one self-contained, closed document: the class, and every class it references in $defs', () => {
      expect(trip.schema).toEqual({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        title: 'TripInput',
        type: 'object',
        additionalProperties: false,
        required: ['destination', 'travellers'],
        properties: {
          destination: { type: 'string', minLength: 1 },
          nights: { type: 'integer', minimum: 1, maximum: 30 },
          travellers: { type: 'array', items: { $ref: '#/$defs/TripTraveller' }, minItems: 1, maxItems: 5 },
          budget: { $ref: '#/$defs/TripBudget' },
        },
        $defs: {
          TripTraveller: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'age'],
            properties: {
              name: { type: 'string', minLength: 1, maxLength: 50 },
              age: { type: 'integer', minimum: 0, maximum: 130 },
            },
          },
          TripBudget: {
            type: 'object',
            additionalProperties: false,
            required: ['amount', 'currency'],
            properties: { amount: { type: 'number', minimum: 0 }, currency: { type: 'string', enum: ['EUR', 'USD'] } },
          },
        },
      });
    });

    const samples: Array<[string, unknown]> = [
      ['minimal', { destination: 'Lisbon', travellers: [ADA] }],
      [
        'complete',
        {
          destination: 'Lisbon',
          nights: 30,
          travellers: [ADA, { name: 'Alan', age: 41 }],
          budget: { amount: 0, currency: 'USD' },
        },
      ],
      ['no travellers', { destination: 'Lisbon', travellers: [] }],
      ['too many travellers', { destination: 'Lisbon', travellers: Array(6).fill(ADA) }],
      ['a missing destination', { travellers: [ADA] }],
      ['an empty destination', { destination: '', travellers: [ADA] }],
      ['a fractional age', { destination: 'Lisbon', travellers: [{ name: 'Ada', age: 36.5 }] }],
      ['an age as a string', { destination: 'Lisbon', travellers: [{ name: 'Ada', age: '36' }] }],
      ['a long name', { destination: 'Lisbon', travellers: [{ name: 'x'.repeat(51), age: 1 }] }],
      ['an unknown currency', { destination: 'Lisbon', travellers: [ADA], budget: { amount: 1, currency: 'GBP' } }],
      ['a negative budget', { destination: 'Lisbon', travellers: [ADA], budget: { amount: -1, currency: 'EUR' } }],
      ['an unknown field', { destination: 'Lisbon', travellers: [ADA], pets: 2 }],
      ['an unknown nested field', { destination: 'Lisbon', travellers: [{ ...ADA, pet: 'cat' }] }],
      ['31 nights', { destination: 'Lisbon', nights: 31, travellers: [ADA] }],
    ];

    it.each(samples)('accepts or refuses a sample (%s) exactly as the validator does', async (_, sample) => {
      const verdict = await read(trip, { data: sample as never });
      expect(schemaProblems(trip.schema, sample).length === 0).toBe(verdict.valid);
    });

    it('is what the checker really checks: it refuses the samples the validator refuses', () => {
      expect(samples.filter(([, sample]) => schemaAccepts(trip.schema, sample)).map(([name]) => name)).toEqual([
        'minimal',
        'complete',
      ]);
    });

    it('is undefined for a class class-validator knows nothing of', () => {
      class Undecorated {
        name?: string;
      }
      expect(inputSchemaOf(Undecorated, packages.schemas())).toBeUndefined();
    });
  });

  describe('bootstrap', () => {
    it('loads class-validator, class-transformer and class-validator-jsonschema only when asked, and names what is missing', async () => {
      const asked: string[] = [];
      const notFound = (specifier: string) =>
        Object.assign(new Error(`Cannot find package '${specifier}'`), { code: 'ERR_MODULE_NOT_FOUND' });
      const error = await loadSkillInputPackages('book-flight', async (specifier) => {
        asked.push(specifier);
        if (specifier.startsWith('class-transformer') || specifier === 'class-validator-jsonschema')
          throw notFound(specifier);
        return import(specifier);
      }).catch((e: unknown) => e);
      expect(asked.sort()).toEqual([
        'class-transformer',
        'class-transformer/cjs/storage.js',
        'class-validator',
        'class-validator-jsonschema',
      ]);
      expect(error).toBeInstanceOf(SkillInputPackagesMissingError);
      expect((error as Error).message).toBe(
        A2aMessages.skillInputPackagesMissing('book-flight', ['class-transformer', 'class-validator-jsonschema']),
      );
      expect((error as Error).message).toContain('npm i class-transformer class-validator-jsonschema');
    });

    it('passes on an error that is not a missing package', async () => {
      const broken = new SyntaxError('Unexpected token');
      await expect(loadSkillInputPackages('x', async () => Promise.reject(broken))).rejects.toBe(broken);
    });

    it.each<[string, Partial<AgentSkillOptions>, string]>([
      ['parseText without input', { parseText: () => ({}) }, '"parseText" needs "input" (a class-validator DTO class)'],
      [
        'onInvalidInput without input',
        { onInvalidInput: 'reject' },
        '"onInvalidInput" needs "input" (a class-validator DTO class)',
      ],
      [
        'an unknown mode',
        { input: PizzaOrder, onInvalidInput: 'ask' as never },
        `"onInvalidInput" must be 'reject' or 'input-required', not "ask"`,
      ],
      ['an input that is no class', { input: {} as never }, '"input" must be a class-validator DTO class'],
      [
        'a parseText that is no function',
        { input: PizzaOrder, parseText: 'text' as never },
        '"parseText" must be a function',
      ],
    ])('refuses %s', (_, options, problem) => {
      expect(() => declaresInput('BadSkill', skill(options))).toThrow(
        new InvalidSkillClassError(A2aMessages.invalidSkillMetadata('BadSkill', problem)),
      );
    });

    it('refuses an input class without class-validator decorators (every input would be refused)', () => {
      class Bare {
        name?: string;
      }
      expect(() => compileSkillInput('BareSkill', skill({ input: Bare }), packages)).toThrow(
        A2aMessages.invalidSkillMetadata(
          'BareSkill',
          'the input class Bare has no class-validator decorators, so every input would be refused',
        ),
      );
    });

    it('says a skill has no input when it declares none', () => {
      expect(declaresInput('PlainSkill', skill({}))).toBe(false);
      expect(declaresInput('TypedSkill', skill({ input: PizzaOrder }))).toBe(true);
    });

    it('keeps a subclass apart from its parent', async () => {
      class Named {
        @IsString()
        name!: string;
      }
      class Titled extends Named {
        @IsString()
        title!: string;
      }
      const input = compileSkillInput('TitledSkill', skill({ input: Titled }), packages);
      expect(input.schema).toMatchObject({ required: ['title', 'name'] });
      expect(invalid(await read(input, { data: { name: 'Ada' } })).map((v) => v.field)).toEqual(['title']);
    });
  });
});
