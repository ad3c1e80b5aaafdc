import 'reflect-metadata';
import { Role, type Message, type Task } from '@a2a-js/sdk';
import {
  ClientFactory,
  JsonRpcTransportFactory,
  RestTransportFactory,
  ServiceParameters,
  withA2AExtensions,
  type TransportFactory,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { ExtensionSupportRequiredError } from '@a2a-js/sdk/errors';
import { createFileRegistry, fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import * as grpc from '@grpc/grpc-js';
import { Injectable, Module, type INestApplication, type Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  A2aMessages,
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  requireInput,
  working,
  type A2aModuleOptions,
  type AgentCard,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { connectA2aGrpc, grpcBinding } from '../../../libs/a2a/src/grpc.js';
import { DirectHttpDispatcher } from '../../../libs/a2a/src/bindings/http/direct/direct-http.dispatcher.js';
import {
  ConflictingExtensionError,
  InvalidExtensionError,
} from '../../../libs/a2a/src/errors/extension-bootstrap.errors.js';
import {
  A2aExtension,
  type A2aExtensionDeclaration,
} from '../../../libs/a2a/src/extensions/a2a-extension.decorator.js';
import { freePort, GrpcJsonClient, reasonOf, type Json } from '../../fixtures/grpc-json.client.js';
import { createTestApplication, TEST_HTTP_ADAPTER } from '../../fixtures/test-app.js';

/**
 * Extensions (spec §4.6, extensions.md) on all three bindings, over real sockets: declared in the
 * card, activated by `A2A-Extensions` (gRPC `a2a-extensions`), echoed in the answer, required ones enforced, and what a
 * skill sees of them; then with the @a2a-js/sdk client, which sends them as service parameters.
 */

const GEO = 'https://ext.example/geolocation/v1';
const TRACE = 'https://ext.example/trace/v1';
const SIGNED = 'https://ext.example/signed-messages/v1';
const UNKNOWN = 'https://ext.example/unknown/v1';

const GEO_DECLARATION: A2aExtensionDeclaration = {
  uri: GEO,
  description: 'Reads the caller position from message metadata',
  params: { precision: 'city' },
};

/** Answers with the extensions it was handed and those of its call. */
@A2aExtension(GEO_DECLARATION)
@A2aExtension({ uri: TRACE, description: 'Traces the request' })
@AgentSkill({ id: 'report', name: 'Report', description: 'Reports its extensions', tags: ['test'], default: true })
class ReportSkill extends A2aSkillHandler {
  handle(context: SkillContext): SkillEvent[] {
    return [
      working(),
      artifact({ data: { extensions: [...context.extensions], call: [...context.call.extensions] } }),
      complete(),
    ];
  }
}

/** Needs every message signed: its messages are refused unless the call activates SIGNED. `ask` waits for more input. */
@A2aExtension({ uri: SIGNED, required: true, description: 'Messages carry a detached signature in their metadata' })
@AgentSkill({ id: 'signed', name: 'Signed', description: 'Takes signed messages only', tags: ['test'] })
class SignedSkill extends A2aSkillHandler {
  handle(context: SkillContext): SkillEvent[] {
    return [
      working(),
      artifact({ data: { extensions: [...context.extensions] } }),
      context.text === 'ask' ? requireInput('And then?') : complete(),
    ];
  }
}

@AgentSkill({ id: 'plain', name: 'Plain', description: 'Completes at once', tags: ['test'] })
class PlainSkill extends A2aSkillHandler {
  handle(context: SkillContext): SkillEvent[] {
    return [artifact({ data: { extensions: [...context.extensions] } }), complete()];
  }
}

interface Agent {
  app: INestApplication;
  /** Origin of the HTTP bindings, also the card's base URL. */
  url: string;
  grpcAddress: string;
  grpc: GrpcJsonClient;
  close(): Promise<void>;
}

/** An agent on every binding, with these module-wide extensions and skills. */
async function startAgent(
  extensions: A2aExtensionDeclaration[],
  skills: Type[],
  more: Partial<A2aModuleOptions> = {},
): Promise<Agent> {
  // Both ports are known before the module is built, so the card lists the real interfaces (the SDK connects by it).
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const grpcAddress = `127.0.0.1:${await freePort()}`;
  @Module({
    imports: [
      A2aModule.forRoot({
        card: { name: 'Extended agent', description: 'Declares extensions' },
        baseUrl: url,
        extensions,
        // Its tests list the anonymous caller's tasks.
        security: { anonymousCallers: 'shared' },
        ...more,
        bindings: [grpcBinding({ url: grpcAddress })],
      }),
    ],
    providers: skills,
  })
  class AgentModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AgentModule] }).compile();
  const app = createTestApplication(moduleRef);
  connectA2aGrpc(app);
  await app.startAllMicroservices();
  await app.listen(port, '127.0.0.1');
  const grpc = new GrpcJsonClient(grpcAddress);
  return {
    app,
    url,
    grpcAddress,
    grpc,
    close: async () => {
      grpc.close();
      await app.close();
    },
  };
}

const message = (text: string, skillId?: string, extra: Json = {}): Json => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text }],
  ...(skillId ? { metadata: { 'nestjs-a2a/skillId': skillId } } : {}),
  ...extra,
});

interface HttpAnswer {
  status: number;
  headers: Headers;
  body: Json;
}

/** A JSON-RPC call; `extensions` goes in `A2A-Extensions`. */
async function rpc(agent: Agent, method: string, params: Json, extensions?: string): Promise<HttpAnswer> {
  const res = await fetch(`${agent.url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      ...(extensions === undefined ? {} : { 'A2A-Extensions': extensions }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
}

/** An HTTP+JSON call below `/a2a/rest`. */
async function rest(
  agent: Agent,
  method: 'GET' | 'POST',
  path: string,
  body?: Json,
  extensions?: string,
): Promise<HttpAnswer> {
  const res = await fetch(`${agent.url}/a2a/rest${path}`, {
    method,
    headers: {
      'Content-Type': 'application/json',
      ...(extensions === undefined ? {} : { 'A2A-Extensions': extensions }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Json };
}

/** A streaming call over either HTTP binding: its headers and the data of its SSE frames. */
async function sse(
  url: string,
  body: Json,
  extensions?: string,
): Promise<{ status: number; headers: Headers; frames: Json[] }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'text/event-stream',
      ...(extensions === undefined ? {} : { 'A2A-Extensions': extensions }),
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const frames = text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as Json);
  return { status: res.status, headers: res.headers, frames };
}

// A unary gRPC call that keeps the answer's initial metadata (the shared test client does not expose it).
const protoRegistry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync('proto/a2a.binpb')));
const a2aService = protoRegistry.getService('lf.a2a.v1.A2AService')!;

interface GrpcAnswer {
  response?: Json;
  error?: grpc.ServiceError;
  /** Initial metadata; none for an error alone (trailers-only). */
  headers?: grpc.Metadata;
}

function grpcUnary(agent: Agent, rpcName: string, request: Json, extensions?: string): Promise<GrpcAnswer> {
  const method = a2aService.methods.find((m) => m.name === rpcName)!;
  const metadata = new grpc.Metadata();
  metadata.set('a2a-version', '1.0');
  if (extensions !== undefined) metadata.set('a2a-extensions', extensions);
  return new Promise((resolve) => {
    let headers: grpc.Metadata | undefined;
    const call = agent.grpc.client.makeUnaryRequest(
      `/${a2aService.typeName}/${rpcName}`,
      (json: Json) => Buffer.from(toBinary(method.input, fromJson(method.input, json, { registry: protoRegistry }))),
      (bytes: Buffer) => toJson(method.output, fromBinary(method.output, bytes), { registry: protoRegistry }) as Json,
      request,
      metadata,
      {},
      (error, response) => resolve(error ? { error, headers } : { response: response!, headers }),
    );
    call.on('metadata', (received: grpc.Metadata) => (headers = received));
  });
}

/** A server-streaming gRPC call: its events and initial metadata. */
async function grpcStream(
  agent: Agent,
  rpcName: string,
  request: Json,
  extensions?: string,
): Promise<{ events: Json[]; headers?: grpc.Metadata }> {
  const stream = agent.grpc.stream(rpcName, request, extensions === undefined ? {} : { 'a2a-extensions': extensions });
  let headers: grpc.Metadata | undefined;
  stream.on('metadata', (received: grpc.Metadata) => (headers = received));
  const events: Json[] = [];
  for await (const event of stream) events.push(event as Json);
  return { events, headers };
}

/** The data part of a task's first artifact. */
function reportOf(task: Json): Json {
  return ((task.artifacts as Json[])[0].parts as Json[])[0].data as Json;
}

describe('extensions: an agent with optional and skill-level required ones', () => {
  let agent: Agent;

  beforeAll(async () => {
    // GEO is declared module-wide and, identically, by ReportSkill: one entry in the card.
    agent = await startAgent([GEO_DECLARATION], [ReportSkill, SignedSkill]);
  });
  afterAll(() => agent?.close());

  describe('the card (spec §4.6)', () => {
    it('lists every declared extension once, module-wide ones first, with its description, required flag and params', async () => {
      const card = (await (await fetch(`${agent.url}/.well-known/agent-card.json`)).json()) as AgentCard;
      expect(card.capabilities.extensions).toEqual([
        {
          uri: GEO,
          description: 'Reads the caller position from message metadata',
          required: false,
          params: { precision: 'city' },
        },
        { uri: TRACE, description: 'Traces the request', required: false },
        { uri: SIGNED, description: 'Messages carry a detached signature in their metadata', required: true },
      ]);
    });

    it("keeps the capabilities in the proto's order", async () => {
      const card = (await (await fetch(`${agent.url}/.well-known/agent-card.json`)).json()) as AgentCard;
      expect(Object.keys(card.capabilities)).toEqual([
        'streaming',
        'pushNotifications',
        'extensions',
        'extendedAgentCard',
      ]);
    });
  });

  describe('no extension requested', () => {
    it('JSON-RPC: works, and the answer echoes none', async () => {
      const answer = await rpc(agent, 'SendMessage', { message: message('hi') });
      expect((answer.body.result as Json).task).toBeDefined();
      expect(reportOf((answer.body.result as Json).task as Json)).toEqual({ extensions: [], call: [] });
      expect(answer.headers.get('a2a-extensions')).toBeNull();
    });

    it('HTTP+JSON: works, and the answer echoes none', async () => {
      const answer = await rest(agent, 'POST', '/message:send', { message: message('hi') });
      expect(answer.status).toBe(200);
      expect(reportOf(answer.body.task as Json)).toEqual({ extensions: [], call: [] });
      expect(answer.headers.get('a2a-extensions')).toBeNull();
    });

    it('gRPC: works, and the initial metadata echoes none', async () => {
      const answer = await grpcUnary(agent, 'SendMessage', { message: message('hi') });
      expect(reportOf(answer.response!.task as Json)).toEqual({ extensions: [], call: [] });
      expect(answer.headers?.get('a2a-extensions')).toEqual([]);
    });
  });

  describe('activated extensions are echoed (spec §4.6) and handed to the skill', () => {
    it('JSON-RPC, unary', async () => {
      const answer = await rpc(agent, 'SendMessage', { message: message('hi') }, `${GEO}, ${TRACE}`);
      expect(answer.headers.get('a2a-extensions')).toBe(`${GEO},${TRACE}`);
      expect(reportOf((answer.body.result as Json).task as Json)).toEqual({
        extensions: [GEO, TRACE],
        call: [GEO, TRACE],
      });
    });

    it('JSON-RPC, SSE (SendStreamingMessage)', async () => {
      const answer = await sse(
        `${agent.url}/a2a/jsonrpc`,
        { jsonrpc: '2.0', id: 2, method: 'SendStreamingMessage', params: { message: message('hi') } },
        TRACE,
      );
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(answer.headers.get('a2a-extensions')).toBe(TRACE);
      const artifactFrame = answer.frames.find((frame) => (frame.result as Json).artifactUpdate);
      expect((((artifactFrame!.result as Json).artifactUpdate as Json).artifact as Json).parts).toMatchObject([
        { data: { extensions: [TRACE], call: [TRACE] } },
      ]);
    });

    it('HTTP+JSON, unary and read operations', async () => {
      const sent = await rest(agent, 'POST', '/message:send', { message: message('hi') }, GEO);
      expect(sent.headers.get('a2a-extensions')).toBe(GEO);
      const read = await rest(
        agent,
        'GET',
        `/tasks/${(sent.body.task as Json).id as string}`,
        undefined,
        `${TRACE},${GEO}`,
      );
      expect(read.status).toBe(200);
      expect(read.headers.get('a2a-extensions')).toBe(`${TRACE},${GEO}`);
    });

    it('HTTP+JSON, SSE (message:stream)', async () => {
      const answer = await sse(`${agent.url}/a2a/rest/message:stream`, { message: message('hi') }, `${GEO},${TRACE}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('a2a-extensions')).toBe(`${GEO},${TRACE}`);
      expect(answer.frames.some((frame) => frame.artifactUpdate !== undefined)).toBe(true);
    });

    it('gRPC, unary: in the initial metadata a2a-extensions', async () => {
      const answer = await grpcUnary(agent, 'SendMessage', { message: message('hi') }, `${GEO},${TRACE}`);
      expect(answer.headers?.get('a2a-extensions')).toEqual([`${GEO},${TRACE}`]);
      expect(reportOf(answer.response!.task as Json)).toEqual({ extensions: [GEO, TRACE], call: [GEO, TRACE] });
    });

    it('gRPC, server stream (SendStreamingMessage)', async () => {
      const answer = await grpcStream(agent, 'SendStreamingMessage', { message: message('hi') }, TRACE);
      expect(answer.headers?.get('a2a-extensions')).toEqual([TRACE]);
      expect(answer.events.length).toBeGreaterThan(0);
    });
  });

  describe('unknown URIs are ignored (spec §4.6.3)', () => {
    it('on every binding: the call goes through with the known ones only, and only they are echoed', async () => {
      const requested = `${UNKNOWN},https://ext.example/geolocation/v2,${GEO}`;
      const overRpc = await rpc(agent, 'SendMessage', { message: message('hi') }, requested);
      expect(overRpc.headers.get('a2a-extensions')).toBe(GEO);
      expect(reportOf((overRpc.body.result as Json).task as Json)).toEqual({ extensions: [GEO], call: [GEO] });
      const overRest = await rest(agent, 'POST', '/message:send', { message: message('hi') }, requested);
      expect(overRest.headers.get('a2a-extensions')).toBe(GEO);
      const overGrpc = await grpcUnary(agent, 'SendMessage', { message: message('hi') }, requested);
      expect(overGrpc.headers?.get('a2a-extensions')).toEqual([GEO]);
      expect(reportOf(overGrpc.response!.task as Json)).toEqual({ extensions: [GEO], call: [GEO] });
    });

    it('only unknown ones: nothing activated, nothing echoed', async () => {
      const answer = await rest(agent, 'POST', '/message:send', { message: message('hi') }, UNKNOWN);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('a2a-extensions')).toBeNull();
    });
  });

  describe('what a skill sees', () => {
    it("the activated extensions of the module and its own, not another skill's; its call lists all that were activated", async () => {
      const answer = await rpc(agent, 'SendMessage', { message: message('hi', 'report') }, `${SIGNED},${TRACE},${GEO}`);
      expect(answer.headers.get('a2a-extensions')).toBe(`${SIGNED},${TRACE},${GEO}`);
      expect(reportOf((answer.body.result as Json).task as Json)).toEqual({
        extensions: [TRACE, GEO],
        call: [SIGNED, TRACE, GEO],
      });
      const signed = await rpc(agent, 'SendMessage', { message: message('hi', 'signed') }, `${SIGNED},${TRACE},${GEO}`);
      expect(reportOf((signed.body.result as Json).task as Json)).toEqual({ extensions: [SIGNED, GEO] });
    });
  });

  describe("a skill's required extension (spec §4.6.3)", () => {
    const contextId = randomUUID();
    const toSigned = () => message('hi', 'signed', { contextId });
    const expectedMessage = A2aMessages.skillExtensionsRequired('signed', [SIGNED]);

    it('JSON-RPC: a message for it without the extension gets -32008, and no task is stored', async () => {
      const answer = await rpc(agent, 'SendMessage', { message: toSigned() }, GEO);
      expect(answer.status).toBe(200);
      expect(answer.body.error).toMatchObject({ code: -32008, message: expectedMessage });
      expect(answer.headers.get('a2a-extensions')).toBeNull();
      const streamed = await rpc(agent, 'SendStreamingMessage', { message: toSigned() });
      expect(streamed.body.error).toMatchObject({ code: -32008 });
    });

    it('HTTP+JSON: 400 FAILED_PRECONDITION, reason EXTENSION_SUPPORT_REQUIRED', async () => {
      const answer = await rest(agent, 'POST', '/message:send', { message: toSigned() });
      expect(answer.status).toBe(400);
      const error = answer.body.error as Json;
      expect(error).toMatchObject({ code: 400, status: 'FAILED_PRECONDITION', message: expectedMessage });
      expect((error.details as Json[])[0]).toMatchObject({
        reason: 'EXTENSION_SUPPORT_REQUIRED',
        metadata: { extensions: SIGNED, skillId: 'signed' },
      });
    });

    it('gRPC: FAILED_PRECONDITION with the ErrorInfo reason', async () => {
      const answer = await grpcUnary(agent, 'SendMessage', { message: toSigned() }, TRACE);
      expect(answer.error?.code).toBe(grpc.status.FAILED_PRECONDITION);
      expect(answer.error?.details).toBe(expectedMessage);
      expect(reasonOf(answer.error)).toBe('EXTENSION_SUPPORT_REQUIRED');
      const streamed = await grpcStream(agent, 'SendStreamingMessage', { message: toSigned() }).catch(
        (error: unknown) => error as grpc.ServiceError,
      );
      expect((streamed as grpc.ServiceError).code).toBe(grpc.status.FAILED_PRECONDITION);
    });

    it('nothing was stored for the refused messages', async () => {
      const answer = await rest(agent, 'GET', `/tasks?contextId=${contextId}`);
      expect(answer.body.tasks).toEqual([]);
    });

    it('with the extension activated, the message goes through; other skills and operations never needed it', async () => {
      const answer = await rpc(agent, 'SendMessage', { message: message('ask', 'signed') }, SIGNED);
      expect((((answer.body.result as Json).task as Json).status as Json).state).toBe('TASK_STATE_INPUT_REQUIRED');
      const taskId = ((answer.body.result as Json).task as Json).id as string;
      // Follow-ups are checked too: without it, refused before the task changes; with it, answered.
      const before = (await rpc(agent, 'GetTask', { id: taskId })).body.result;
      const followUp = await rpc(agent, 'SendMessage', { message: message('again', undefined, { taskId }) });
      expect(followUp.body.error).toMatchObject({ code: -32008, message: expectedMessage });
      expect((await rpc(agent, 'GetTask', { id: taskId })).body.result).toEqual(before);
      const answered = await rpc(agent, 'SendMessage', { message: message('again', undefined, { taskId }) }, SIGNED);
      expect((((answered.body.result as Json).task as Json).status as Json).state).toBe('TASK_STATE_COMPLETED');
      expect((await rpc(agent, 'GetTask', { id: taskId })).body.result).toMatchObject({ id: taskId });
      expect((await grpcUnary(agent, 'GetTask', { id: taskId })).response).toMatchObject({ id: taskId });
    });
  });

  it('an error answer echoes nothing, even with extensions activated', async () => {
    const overRpc = await rpc(agent, 'GetTask', { id: randomUUID() }, GEO);
    expect((overRpc.body.error as Json).code).toBe(-32001);
    expect(overRpc.headers.get('a2a-extensions')).toBeNull();
    const overRest = await rest(agent, 'GET', `/tasks/${randomUUID()}`, undefined, GEO);
    expect(overRest.status).toBe(404);
    expect(overRest.headers.get('a2a-extensions')).toBeNull();
    const overSse = await sse(`${agent.url}/a2a/rest/tasks/${randomUUID()}:subscribe`, {}, GEO);
    expect(overSse.status).toBe(404);
    expect(overSse.headers.get('a2a-extensions')).toBeNull();
    const overGrpc = await grpcUnary(agent, 'GetTask', { id: randomUUID() }, GEO);
    expect(overGrpc.error?.code).toBe(grpc.status.NOT_FOUND);
    expect(overGrpc.headers).toBeUndefined();
  });
});

describe('extensions: both HTTP paths echo them', () => {
  it("served from node's request event (direct dispatch, Express) or through the adapter's routes", async () => {
    const direct = await startAgent([GEO_DECLARATION], [ReportSkill]);
    const routed = await startAgent([GEO_DECLARATION], [ReportSkill], { directDispatch: false });
    try {
      for (const agent of [direct, routed]) {
        expect((await rpc(agent, 'SendMessage', { message: message('hi') }, GEO)).headers.get('a2a-extensions')).toBe(
          GEO,
        );
        expect(
          (await rest(agent, 'POST', '/message:send', { message: message('hi') }, TRACE)).headers.get('a2a-extensions'),
        ).toBe(TRACE);
        expect(
          (await sse(`${agent.url}/a2a/rest/message:stream`, { message: message('hi') }, GEO)).headers.get(
            'a2a-extensions',
          ),
        ).toBe(GEO);
        expect(
          (
            await sse(
              `${agent.url}/a2a/jsonrpc`,
              { jsonrpc: '2.0', id: 3, method: 'SendStreamingMessage', params: { message: message('hi') } },
              TRACE,
            )
          ).headers.get('a2a-extensions'),
        ).toBe(TRACE);
      }
      // The two paths were indeed taken (direct dispatch exists on Express only).
      expect(direct.app.get(DirectHttpDispatcher).active).toBe(TEST_HTTP_ADAPTER === 'express');
      expect(routed.app.get(DirectHttpDispatcher).active).toBe(false);
    } finally {
      await direct.close();
      await routed.close();
    }
  });
});

describe('extensions: an agent with a module-wide required one (spec §4.6.3)', () => {
  let agent: Agent;
  const expectedMessage = A2aMessages.extensionsRequired([SIGNED]);

  beforeAll(async () => {
    agent = await startAgent([{ uri: SIGNED, required: true }, { uri: GEO }], [PlainSkill]);
  });
  afterAll(() => agent?.close());

  it('JSON-RPC: every operation without it gets -32008 (HTTP 200), streaming ones as a plain answer', async () => {
    for (const [method, params] of [
      ['SendMessage', { message: message('hi') }],
      ['GetTask', { id: randomUUID() }],
      ['ListTasks', {}],
      ['CancelTask', { id: randomUUID() }],
    ] as const) {
      const answer = await rpc(agent, method, params, GEO);
      expect(answer.status).toBe(200);
      expect(answer.body.error).toMatchObject({ code: -32008, message: expectedMessage });
      expect(answer.headers.get('a2a-extensions')).toBeNull();
    }
    const streamed = await rpc(agent, 'SendStreamingMessage', { message: message('hi') });
    expect(streamed.headers.get('content-type')).toMatch(/^application\/json/);
    expect((streamed.body.error as Json).code).toBe(-32008);
  });

  it('HTTP+JSON: 400 FAILED_PRECONDITION on every operation without it', async () => {
    for (const answer of [
      await rest(agent, 'POST', '/message:send', { message: message('hi') }),
      await rest(agent, 'GET', '/tasks'),
      await rest(agent, 'GET', `/tasks/${randomUUID()}`, undefined, UNKNOWN),
      await rest(agent, 'POST', '/message:stream', { message: message('hi') }, GEO),
    ]) {
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ status: 'FAILED_PRECONDITION', message: expectedMessage });
      expect(((answer.body.error as Json).details as Json[])[0]).toMatchObject({
        reason: 'EXTENSION_SUPPORT_REQUIRED',
        metadata: { extensions: SIGNED },
      });
    }
  });

  it('gRPC: FAILED_PRECONDITION on every rpc without it, streams included', async () => {
    for (const [rpcName, request] of [
      ['SendMessage', { message: message('hi') }],
      ['GetTask', { id: randomUUID() }],
      ['ListTasks', {}],
    ] as const) {
      const answer = await grpcUnary(agent, rpcName, request, GEO);
      expect(answer.error?.code).toBe(grpc.status.FAILED_PRECONDITION);
      expect(answer.error?.details).toBe(expectedMessage);
      expect(reasonOf(answer.error)).toBe('EXTENSION_SUPPORT_REQUIRED');
    }
    const streamed = await grpcStream(agent, 'SubscribeToTask', { id: randomUUID() }).catch(
      (error: unknown) => error as grpc.ServiceError,
    );
    expect((streamed as grpc.ServiceError).code).toBe(grpc.status.FAILED_PRECONDITION);
  });

  it('with it, every binding answers and echoes it', async () => {
    const overRpc = await rpc(agent, 'SendMessage', { message: message('hi') }, `${SIGNED},${GEO}`);
    expect(overRpc.headers.get('a2a-extensions')).toBe(`${SIGNED},${GEO}`);
    expect(reportOf((overRpc.body.result as Json).task as Json)).toEqual({ extensions: [SIGNED, GEO] });
    const overRest = await rest(agent, 'GET', '/tasks', undefined, SIGNED);
    expect(overRest.status).toBe(200);
    expect(overRest.headers.get('a2a-extensions')).toBe(SIGNED);
    const overSse = await sse(`${agent.url}/a2a/rest/message:stream`, { message: message('hi') }, SIGNED);
    expect(overSse.headers.get('a2a-extensions')).toBe(SIGNED);
    const overGrpc = await grpcStream(agent, 'SendStreamingMessage', { message: message('hi') }, SIGNED);
    expect(overGrpc.headers?.get('a2a-extensions')).toEqual([SIGNED]);
  });
});

describe('extensions: bootstrap', () => {
  /** Boots A2aModule with these options and providers; what init threw, or undefined. */
  async function bootstrapError(
    extensions: A2aExtensionDeclaration[] | undefined,
    providers: Type[],
  ): Promise<unknown> {
    const moduleRef = await Test.createTestingModule({
      imports: [A2aModule.forRoot({ card: { name: 'Bootstrap', description: 'Extensions misdeclared' }, extensions })],
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

  it('fails on one URI declared differently by the module and a skill (ConflictingExtensionError)', async () => {
    const error = await bootstrapError([{ uri: SIGNED }], [SignedSkill]);
    expect(error).toBeInstanceOf(ConflictingExtensionError);
    expect((error as Error).message).toBe(
      A2aMessages.conflictingExtension(SIGNED, 'option extensions', '@A2aExtension on SignedSkill'),
    );
  });

  it('fails on one URI declared differently by two skills', async () => {
    @A2aExtension({ uri: TRACE, description: 'Another story' })
    @AgentSkill({ id: 'other', name: 'Other', description: 'Declares TRACE otherwise', tags: ['test'] })
    class OtherTraceSkill extends A2aSkillHandler {
      handle(): SkillEvent[] {
        return [complete()];
      }
    }
    const error = await bootstrapError(undefined, [ReportSkill, OtherTraceSkill]);
    expect(error).toBeInstanceOf(ConflictingExtensionError);
    expect((error as Error).message).toBe(
      A2aMessages.conflictingExtension(TRACE, '@A2aExtension on ReportSkill', '@A2aExtension on OtherTraceSkill'),
    );
  });

  it('fails on @A2aExtension on a provider that is no skill (InvalidExtensionError)', async () => {
    @A2aExtension({ uri: GEO })
    @Injectable()
    class GeoService {}
    const error = await bootstrapError(undefined, [PlainSkill, GeoService]);
    expect(error).toBeInstanceOf(InvalidExtensionError);
    expect((error as Error).message).toBe(A2aMessages.extensionOutsideSkill('GeoService'));
  });

  it('fails on a URI a client could not list in A2A-Extensions (InvalidExtensionError)', async () => {
    const error = await bootstrapError([{ uri: `${GEO},${TRACE}` }], [PlainSkill]);
    expect(error).toBeInstanceOf(InvalidExtensionError);
  });

  it('boots with identical declarations of one URI', async () => {
    expect(await bootstrapError([GEO_DECLARATION], [ReportSkill])).toBeUndefined();
  });
});

describe('extensions: the @a2a-js/sdk client', () => {
  let agent: Agent;
  let strict: Agent;

  beforeAll(async () => {
    agent = await startAgent([GEO_DECLARATION], [ReportSkill, SignedSkill]);
    strict = await startAgent([{ uri: SIGNED, required: true }], [PlainSkill]);
  });
  afterAll(async () => {
    await agent?.close();
    await strict?.close();
  });

  /** A fetch that remembers the `A2A-Extensions` of every answer. */
  function recordingFetch(echoes: Array<string | null>): typeof fetch {
    return async (input, init) => {
      const res = await fetch(input, init);
      echoes.push(res.headers.get('a2a-extensions'));
      return res;
    };
  }

  /** A gRPC interceptor that remembers the `a2a-extensions` of every answer's initial metadata. */
  function recordingInterceptor(echoes: Array<string | undefined>): grpc.Interceptor {
    return (options, nextCall) =>
      new grpc.InterceptingCall(nextCall(options), {
        start(metadata, listener, next) {
          next(metadata, {
            ...listener,
            onReceiveMetadata(received, forward) {
              echoes.push(received.get('a2a-extensions')[0] as string | undefined);
              forward(received);
            },
          });
        },
      });
  }

  const sdkMessage = (text: string): Message => ({
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  });

  const withExtensions = (...uris: string[]) => ({
    serviceParameters: ServiceParameters.create(withA2AExtensions(...uris)),
  });

  describe.each([
    ['JSONRPC', (fetchImpl: typeof fetch): TransportFactory => new JsonRpcTransportFactory({ fetchImpl })],
    ['HTTP+JSON', (fetchImpl: typeof fetch): TransportFactory => new RestTransportFactory({ fetchImpl })],
  ])('over %s', (_binding, transport) => {
    it('sends withA2AExtensions as A2A-Extensions: the skill sees them and the answer echoes the known ones', async () => {
      const echoes: Array<string | null> = [];
      const client = await new ClientFactory({ transports: [transport(recordingFetch(echoes))] }).createFromUrl(
        agent.url,
      );
      expect((await client.getAgentCard()).capabilities?.extensions.map((e) => [e.uri, e.required])).toEqual([
        [GEO, false],
        [TRACE, false],
        [SIGNED, true],
      ]);
      echoes.length = 0;
      const task = (await client.sendMessage(
        { tenant: '', message: sdkMessage('hi'), metadata: undefined, configuration: undefined },
        withExtensions(TRACE, UNKNOWN),
      )) as Task;
      expect(task.artifacts[0].parts[0].content).toEqual({
        $case: 'data',
        value: { extensions: [TRACE], call: [TRACE] },
      });
      expect(echoes).toEqual([TRACE]);
    });

    it('gets ExtensionSupportRequiredError without a required extension, and an answer with it', async () => {
      const client = await new ClientFactory({ transports: [transport(fetch)] }).createFromUrl(strict.url);
      const params = { tenant: '', message: sdkMessage('hi'), metadata: undefined, configuration: undefined };
      await expect(client.sendMessage(params)).rejects.toBeInstanceOf(ExtensionSupportRequiredError);
      await expect(
        client.listTasks({
          tenant: '',
          contextId: '',
          status: 0,
          pageSize: 10,
          pageToken: '',
          historyLength: 0,
          statusTimestampAfter: undefined,
          includeArtifacts: false,
        }),
      ).rejects.toBeInstanceOf(ExtensionSupportRequiredError);
      const task = (await client.sendMessage(params, withExtensions(SIGNED))) as Task;
      expect(task.artifacts[0].parts[0].content).toEqual({ $case: 'data', value: { extensions: [SIGNED] } });
    });
  });

  describe('over GRPC', () => {
    it('sends them as a2a-extensions metadata, and reads the echo in the initial metadata', async () => {
      const echoes: Array<string | undefined> = [];
      const client = await new ClientFactory({
        transports: [new GrpcTransportFactory({ grpcCallOptions: { interceptors: [recordingInterceptor(echoes)] } })],
      }).createFromUrl(agent.url);
      expect(client.transport.protocolName).toBe('GRPC');
      const task = (await client.sendMessage(
        { tenant: '', message: sdkMessage('hi'), metadata: undefined, configuration: undefined },
        withExtensions(GEO, TRACE),
      )) as Task;
      expect(task.artifacts[0].parts[0].content).toEqual({
        $case: 'data',
        value: { extensions: [GEO, TRACE], call: [GEO, TRACE] },
      });
      expect(echoes).toEqual([`${GEO},${TRACE}`]);
    });

    it('gets ExtensionSupportRequiredError without a required extension', async () => {
      const client = await new ClientFactory({ transports: [new GrpcTransportFactory()] }).createFromUrl(strict.url);
      await expect(
        client.sendMessage({ tenant: '', message: sdkMessage('hi'), metadata: undefined, configuration: undefined }),
      ).rejects.toBeInstanceOf(ExtensionSupportRequiredError);
    });
  });
});
