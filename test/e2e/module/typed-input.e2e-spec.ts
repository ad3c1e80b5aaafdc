import 'reflect-metadata';
import { jest } from '@jest/globals';
import { verifyAgentCardSignature } from '@a2a-js/sdk';
import * as grpc from '@grpc/grpc-js';
import { Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { JSONWebKeySet } from 'jose';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import {
  A2aMessages,
  A2aModule,
  cardSigningKeyFromPem,
  SKILL_ID_METADATA_KEY,
  verifyAgentCard,
  type AgentCard,
  type Message,
  type Task,
  type TaskScope,
} from '../../../libs/a2a/src/index.js';
import { InMemoryTaskStore, type StoredTask, type TaskChange } from '../../../libs/a2a/src/store.js';
import { connectA2aGrpc, grpcBinding } from '../../../libs/a2a/src/grpc.js';
import { SKILL_INPUT_SCHEMA_EXTENSION_URI } from '../../../libs/a2a/src/skills/skill-input.js';
import { freePort, GrpcJsonClient, statusDetailsOf, type Json } from '../../fixtures/grpc-json.client.js';
import { createTestApplication } from '../../fixtures/test-app.js';
import {
  PIZZA_SKILL_ID,
  PizzaSkill,
  PLAIN_SKILL_ID,
  PlainSkill,
  TRIP_SKILL_ID,
  TripSkill,
} from '../../fixtures/typed-input.fixtures.js';
import { schemaAccepts } from '../../fixtures/typed-input.schema-check.js';

/**
 * Typed skill inputs (`@AgentSkill({ input })`) end to end, on JSON-RPC, HTTP+JSON and gRPC: validated inputs reach
 * the skill as class instances; invalid ones are refused before anything is stored (mode 'reject') or turn the task
 * INPUT_REQUIRED until a follow-up fixes them (mode 'input-required'); the card publishes each input's JSON Schema.
 */

/** Records every write, so a test can tell that a refused message left nothing behind. */
class RecordingStore extends InMemoryTaskStore {
  readonly writes: string[] = [];

  override create(task: Task, skillId: string, scope: TaskScope): Promise<StoredTask> {
    this.writes.push(`create ${task.id}`);
    return super.create(task, skillId, scope);
  }

  override update(
    id: string,
    scope: TaskScope,
    expectedVersion: number,
    changes: readonly TaskChange[],
  ): Promise<number> {
    this.writes.push(`update ${id}`);
    return super.update(id, scope, expectedVersion, changes);
  }

  override claimMessageId(scope: TaskScope, messageId: string, taskId: string): Promise<string> {
    this.writes.push(`claim ${messageId}`);
    return super.claimMessageId(scope, messageId, taskId);
  }
}

const HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };
const ADA = { name: 'Ada', age: 36 };
const VALID_TRIP = {
  destination: 'Lisbon',
  nights: 3,
  travellers: [ADA, { name: 'Alan', age: 41 }],
  budget: { amount: 900, currency: 'EUR' },
};
const INVALID_TRIP = {
  destination: 'Lisbon',
  travellers: [ADA, { name: '', age: -1 }],
  budget: { amount: 900, currency: 'GBP' },
  pets: 1,
};
const INVALID_TRIP_VIOLATIONS = [
  { field: 'pets', description: 'property pets should not exist' },
  { field: 'travellers[1].name', description: 'name should not be empty' },
  { field: 'travellers[1].age', description: 'age must not be less than 0' },
  { field: 'budget.currency', description: 'currency must be one of the following values: EUR, USD' },
];

function message(parts: Message['parts'], skillId?: string, extra: Partial<Message> = {}): Message {
  return {
    messageId: randomUUID(),
    role: 'ROLE_USER',
    parts,
    ...(skillId ? { metadata: { [SKILL_ID_METADATA_KEY]: skillId } } : {}),
    ...extra,
  };
}

const text = (m: { parts: Array<{ text?: string }> } | undefined) => m?.parts.map((p) => p.text ?? '').join('') ?? '';

describe('typed skill inputs', () => {
  let app: INestApplication;
  let url: string;
  let grpcClient: GrpcJsonClient;
  let store: RecordingStore;
  let trips: TripSkill;
  let pizzas: PizzaSkill;

  beforeAll(async () => {
    store = new RecordingStore();
    const grpcAddress = `127.0.0.1:${await freePort()}`;
    const key = await cardSigningKeyFromPem(
      generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }),
    );
    @Module({
      imports: [
        A2aModule.forRoot({
          card: { name: 'Typed agent', description: 'Takes typed inputs' },
          baseUrl: 'http://127.0.0.1',
          taskStore: store,
          security: { allowAnonymous: true },
          cardSigning: { keys: [key] },
          bindings: [grpcBinding({ url: grpcAddress })],
        }),
      ],
      providers: [TripSkill, PizzaSkill, PlainSkill],
    })
    class TypedModule {}
    const moduleRef = await Test.createTestingModule({ imports: [TypedModule] }).compile();
    app = createTestApplication(moduleRef);
    connectA2aGrpc(app);
    await app.startAllMicroservices();
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    grpcClient = new GrpcJsonClient(grpcAddress);
    trips = app.get(TripSkill);
    pizzas = app.get(PizzaSkill);
  });
  afterAll(async () => {
    grpcClient?.close();
    await app?.close();
  });

  // Response bodies are checked field by field, so they are read untyped.
  async function rpc(method: string, params: unknown): Promise<any> {
    const res = await fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return res.json();
  }

  async function rest(path: string, body: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${url}/a2a/rest${path}`, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  }

  const sendRpc = async (m: Message): Promise<Task> => {
    const answer = await rpc('SendMessage', { message: m });
    if (!answer.result?.task) throw new Error(`expected a task, got ${JSON.stringify(answer)}`);
    return answer.result.task as Task;
  };

  const badRequest = (details: Json[] | undefined) =>
    details?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest')?.fieldViolations as
      Array<{ field: string; description: string }> | undefined;
  const errorInfo = (details: Json[] | undefined) =>
    details?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');

  describe('a valid input', () => {
    it('reaches the skill as an instance of its class, from a data part (JSON-RPC)', async () => {
      const task = await sendRpc(message([{ data: VALID_TRIP }], TRIP_SKILL_ID));
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(task.artifacts?.[0].parts[0].data).toEqual({ instances: true, input: VALID_TRIP });
      expect(text(task.status.message)).toBe('3 nights in Lisbon');
    });

    it('is read with parseText from a plain-text request, class defaults filling in (HTTP+JSON)', async () => {
      const { status, body } = await rest('/message:send', {
        message: message([{ text: 'trip to Porto, 2 nights, Ada:36' }], TRIP_SKILL_ID),
      });
      expect(status).toBe(200);
      expect(body.task.artifacts[0].parts[0].data).toEqual({
        instances: true,
        input: { destination: 'Porto', nights: 2, travellers: [ADA] },
      });
    });

    it('prefers the data part to the text when a message has both (gRPC)', async () => {
      const answer = await grpcClient.unary('SendMessage', {
        message: message(
          [{ text: 'trip to Porto, 2 nights, Ada:36' }, { data: { destination: 'Oslo', travellers: [ADA] } }],
          TRIP_SKILL_ID,
        ) as never,
      });
      const task = answer.task as any;
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(task.artifacts[0].parts[0].data).toEqual({
        instances: true,
        input: { destination: 'Oslo', nights: 1, travellers: [ADA] },
      });
    });

    it('leaves context.input undefined for a skill without input', async () => {
      const task = await sendRpc(message([{ text: 'hello' }, { data: { any: 'thing' } }], PLAIN_SKILL_ID));
      expect(text(task.status.message)).toBe('no input');
    });
  });

  describe("an invalid input, mode 'reject'", () => {
    const skillCalls = () => trips.inputs.length;

    it('is InvalidParams -32602 on JSON-RPC, every violation in the BadRequest, and nothing is stored', async () => {
      const calls = skillCalls();
      store.writes.length = 0;
      const answer = await rpc('SendMessage', { message: message([{ data: INVALID_TRIP }], TRIP_SKILL_ID) });
      expect(answer.error.code).toBe(-32602);
      expect(answer.error.message).toBe(
        A2aMessages.invalidSkillInput(
          TRIP_SKILL_ID,
          INVALID_TRIP_VIOLATIONS.map((v) => `${v.field}: ${v.description}`).join('; '),
        ),
      );
      expect(badRequest(answer.error.data)).toEqual(INVALID_TRIP_VIOLATIONS);
      expect(errorInfo(answer.error.data)).toMatchObject({
        reason: 'INVALID_PARAMS',
        metadata: { skillId: TRIP_SKILL_ID },
      });
      expect(store.writes).toEqual([]);
      expect(skillCalls()).toBe(calls);
    });

    it('is 400 INVALID_ARGUMENT on HTTP+JSON, streaming or not, and nothing is stored', async () => {
      store.writes.length = 0;
      for (const path of ['/message:send', '/message:stream']) {
        const { status, body } = await rest(path, { message: message([{ data: INVALID_TRIP }], TRIP_SKILL_ID) });
        expect(status).toBe(400);
        expect(body.error.status).toBe('INVALID_ARGUMENT');
        expect(badRequest(body.error.details)).toEqual(INVALID_TRIP_VIOLATIONS);
      }
      expect(store.writes).toEqual([]);
    });

    it('is INVALID_ARGUMENT on gRPC, with the BadRequest in the status details, and nothing is stored', async () => {
      store.writes.length = 0;
      for (const rpcName of ['SendMessage', 'SendStreamingMessage']) {
        const request = { message: message([{ data: INVALID_TRIP }], TRIP_SKILL_ID) as never };
        const error = (await (
          rpcName === 'SendMessage' ? grpcClient.unary(rpcName, request) : grpcClient.collect(rpcName, request)
        ).catch((e: unknown) => e)) as grpc.ServiceError;
        expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
        expect(badRequest(statusDetailsOf(error)?.details as Json[])).toEqual(INVALID_TRIP_VIOLATIONS);
      }
      expect(store.writes).toEqual([]);
    });

    it('from a text parseText cannot read: the missing fields', async () => {
      const answer = await rpc('SendMessage', { message: message([{ text: 'somewhere nice please' }], TRIP_SKILL_ID) });
      expect(badRequest(answer.error.data)?.map((v) => v.field)).toEqual([
        'destination',
        'destination',
        'travellers',
        'travellers',
        'travellers',
      ]);
    });

    it('leaves no trace: the same messageId, corrected, starts a task (it was never claimed)', async () => {
      const refused = message([{ data: INVALID_TRIP }], TRIP_SKILL_ID);
      expect((await rpc('SendMessage', { message: refused })).error.code).toBe(-32602);
      const task = await sendRpc({ ...refused, parts: [{ data: VALID_TRIP }] });
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    });
  });

  describe("an invalid input, mode 'input-required'", () => {
    it('creates the task INPUT_REQUIRED with the violations as a data part, without calling the skill; a follow-up fixes it', async () => {
      const calls = pizzas.inputs.length;
      const asked = await sendRpc(message([{ data: { pizza: 'hawaii', quantity: 0 } }], PIZZA_SKILL_ID));
      expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const violations = [
        { field: 'pizza', description: 'pizza must be one of the following values: margherita, diavola' },
        { field: 'quantity', description: 'quantity must not be less than 1' },
      ];
      expect(asked.status.message?.parts).toEqual([
        { text: A2aMessages.invalidInputQuestion(violations.map((v) => `${v.field}: ${v.description}`).join('; ')) },
        { data: { fieldViolations: violations }, mediaType: 'application/json' },
      ]);
      expect(pizzas.inputs.length).toBe(calls);

      // Still wrong, over HTTP+JSON: asked again, with this message's violations.
      const again = await rest('/message:send', {
        message: message([{ data: { pizza: 'diavola', quantity: 11 } }], undefined, { taskId: asked.id }),
      });
      expect(again.body.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(again.body.task.status.message.parts[1].data).toEqual({
        fieldViolations: [{ field: 'quantity', description: 'quantity must not be greater than 10' }],
      });
      expect(pizzas.inputs.length).toBe(calls);

      // Fixed, over gRPC, streamed: the skill runs with the corrected input.
      const events = await grpcClient.collect('SendStreamingMessage', {
        message: message([{ data: { pizza: 'diavola', quantity: 2 } }], undefined, { taskId: asked.id }) as never,
      });
      expect(events.map((event: any) => event.task?.status.state ?? event.statusUpdate?.status.state)).toEqual([
        'TASK_STATE_INPUT_REQUIRED',
        'TASK_STATE_COMPLETED',
      ]);
      expect(pizzas.inputs.slice(calls).map((input) => ({ ...input }))).toEqual([{ pizza: 'diavola', quantity: 2 }]);

      const task = (await rpc('GetTask', { id: asked.id })).result as Task;
      expect(text(task.status.message)).toBe('2 × diavola');
      expect(task.history?.filter((m) => m.role === 'ROLE_USER')).toHaveLength(3);
    });

    it('streams the INPUT_REQUIRED task like any other (HTTP+JSON SSE)', async () => {
      const res = await fetch(`${url}/a2a/rest/message:stream`, {
        method: 'POST',
        headers: HEADERS,
        body: JSON.stringify({ message: message([{ text: 'a pizza' }], PIZZA_SKILL_ID) }),
      });
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const frames = (await res.text())
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)));
      const state = frames.map((frame) => frame.task?.status.state ?? frame.statusUpdate?.status.state);
      expect(state.at(-1)).toBe('TASK_STATE_INPUT_REQUIRED');
    });
  });

  describe('the card', () => {
    let card: AgentCard;
    beforeAll(async () => {
      // Parsed here, not by fetch's json(): objects of another realm are not plain objects to the JCS of the verifier.
      card = JSON.parse(await (await fetch(`${url}/.well-known/agent-card.json`)).text()) as AgentCard;
    });

    const schemaOf = (skillId: string) =>
      card.capabilities.extensions?.find((e) => e.uri === SKILL_INPUT_SCHEMA_EXTENSION_URI)?.params?.[
        skillId
      ] as Record<string, unknown>;

    it('publishes each typed input as a JSON Schema in the skill-input-schema extension, by skill id', () => {
      const extension = card.capabilities.extensions?.find((e) => e.uri === SKILL_INPUT_SCHEMA_EXTENSION_URI);
      expect(extension).toMatchObject({
        uri: SKILL_INPUT_SCHEMA_EXTENSION_URI,
        required: false,
        description: expect.any(String),
      });
      expect(Object.keys(extension?.params ?? {})).toEqual([TRIP_SKILL_ID, PIZZA_SKILL_ID]);
      expect(schemaOf(PIZZA_SKILL_ID)).toEqual({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        title: 'PizzaOrder',
        type: 'object',
        additionalProperties: false,
        required: ['pizza', 'quantity'],
        properties: {
          pizza: { type: 'string', enum: ['margherita', 'diavola'] },
          quantity: { type: 'integer', minimum: 1, maximum: 10 },
        },
      });
    });

    it('lists application/json in a typed-input skill’s inputModes, unless the skill sets its own', () => {
      const modesOf = (id: string) => card.skills.find((skill) => skill.id === id)?.inputModes;
      expect(card.defaultInputModes).toEqual(['text/plain']);
      // PizzaSkill sets no inputModes: the card's defaults plus application/json.
      expect(modesOf(PIZZA_SKILL_ID)).toEqual(['text/plain', 'application/json']);
      expect(modesOf(TRIP_SKILL_ID)).toEqual(['text/plain', 'application/json']);
      // No typed input: no modes of its own, the card's defaults apply.
      expect(modesOf(PLAIN_SKILL_ID)).toBeUndefined();
    });

    it('keeps the typed-input options out of the skills', () => {
      for (const skill of card.skills)
        expect(
          Object.keys(skill).filter((key) =>
            ['input', 'onInvalidInput', 'parseText', 'invalidInputMessage'].includes(key),
          ),
        ).toEqual([]);
    });

    it.each([
      ['a valid trip', VALID_TRIP],
      ['an invalid trip', INVALID_TRIP],
      ['a trip without travellers', { destination: 'Rome', travellers: [] }],
      ['a trip with a fractional age', { destination: 'Rome', travellers: [{ name: 'Ada', age: 1.5 }] }],
      ['a minimal trip', { destination: 'Rome', travellers: [ADA] }],
    ])('has a schema that agrees with the server on %s', async (_, sample) => {
      const answer = await rpc('SendMessage', { message: message([{ data: sample }], TRIP_SKILL_ID) });
      expect(schemaAccepts(schemaOf(TRIP_SKILL_ID), sample)).toBe(answer.error === undefined);
    });

    it('is signed, and verifies with ours and with @a2a-js/sdk', async () => {
      const jwks = (await (await fetch(`${url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
      expect(await verifyAgentCard(card, { keys: jwks })).toMatchObject({ valid: true, coverage: 'strict' });
      const debug = jest.spyOn(console, 'debug').mockImplementation(() => undefined);
      try {
        await expect(
          verifyAgentCardSignature(async (kid) => jwks.keys.find((k) => k.kid === kid)!)(card as never),
        ).resolves.toBeUndefined();
      } finally {
        debug.mockRestore();
      }
    });
  });
});
