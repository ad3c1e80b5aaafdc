import { status as GrpcStatus, type ClientReadableStream, type ServiceError } from '@grpc/grpc-js';
import { Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  apiKeyScheme,
  InvalidA2aOptionsError,
  requireInput,
  type A2aSecurityOptions,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { A2aMessages } from '../../../libs/a2a/src/a2a.messages.js';
import { A2A_ERROR_CODES } from '../../../libs/a2a/src/errors/a2a-error-codes.js';
import { GrpcJsonClient, type Json } from '../../fixtures/grpc-json.client.js';
import { startGrpcProbeApp, type GrpcProbeApp } from '../../fixtures/grpc-probe.fixture.js';
import { BINDINGS, call, type Binding, type SecurityTarget } from '../../fixtures/security-calls.js';

/**
 * Caps per principal (option `limits`): a full store evicts the flooder's own tasks, one owner's stored tasks are
 * capped (`maxTasksPerPrincipal`), and so are its open streams (`maxStreamsPerPrincipal`), on every binding.
 */

/** Runs of the ask skill, so far. */
let asks = 0;

@AgentSkill({ id: 'ask', name: 'Ask', description: 'Asks a question and waits for the answer', tags: ['test'] })
class AskSkill extends A2aSkillHandler {
  async *handle(): AsyncIterable<SkillEvent> {
    asks++;
    yield requireInput('Which one?');
  }
}

const KEYS = { alice: 'key-a', bob: 'key-b' } as const;
const security: A2aSecurityOptions = {
  schemes: { apiKey: apiKeyScheme({ in: 'header', name: 'X-API-Key', keys: KEYS }) },
  requirements: [{ apiKey: [] }],
};
const as = (who: keyof typeof KEYS) => ({ 'X-API-Key': KEYS[who] });
const message = (text: string, skillId = 'probe'): Json => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text }],
  metadata: { 'nestjs-a2a/skillId': skillId },
});
const RESOURCE_EXHAUSTED = A2A_ERROR_CODES.TooManyRequests;

async function startTarget(limits: object): Promise<{ probe: GrpcProbeApp; target: SecurityTarget }> {
  const probe = await startGrpcProbeApp({ a2a: { security, limits }, providers: [AskSkill] });
  return { probe, target: { httpUrl: probe.httpUrl, grpc: new GrpcJsonClient(probe.grpcAddress) } };
}

async function ask(target: SecurityTarget, who: keyof typeof KEYS, binding: Binding = 'JSONRPC') {
  return call(target, binding, 'SendMessage', { message: message('which', 'ask') }, as(who));
}

describe('a full store (limits.maxTasks)', () => {
  let probe: GrpcProbeApp;
  let target: SecurityTarget;
  beforeAll(async () => ({ probe, target } = await startTarget({ maxTasks: 4 })));
  afterAll(async () => {
    target?.grpc.close();
    await probe?.app.close();
  });

  it("evicts the flooder's own tasks, never another owner's INPUT_REQUIRED task", async () => {
    const asked = await ask(target, 'bob');
    const taskId = (asked.result!.task as Json).id as string;
    for (let i = 0; i < 10; i++) {
      expect(
        (await call(target, 'JSONRPC', 'SendMessage', { message: message(`echo ${i}`) }, as('alice'))).status,
      ).toBe('OK');
      expect((await ask(target, 'alice')).status).toBe('OK');
    }
    const kept = await call(target, 'JSONRPC', 'GetTask', { id: taskId }, as('bob'));
    expect(kept.status).toBe('OK');
    expect((kept.result!.status as Json).state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect((await call(target, 'JSONRPC', 'ListTasks', {}, as('alice'))).result!.totalSize).toBe(3);
  });
});

describe('limits.maxTasksPerPrincipal', () => {
  let probe: GrpcProbeApp;
  let target: SecurityTarget;
  beforeAll(async () => ({ probe, target } = await startTarget({ maxTasksPerPrincipal: 3 })));
  afterAll(async () => {
    target?.grpc.close();
    await probe?.app.close();
  });

  it.each(BINDINGS)(
    'refuses the task beyond it when none of the owner’s has ended, on %s; other owners keep theirs',
    async (binding) => {
      // Alice's earlier cases left her 3 open tasks: with them, every new one is refused.
      const { total } = await openTasksOf(target, 'alice');
      for (let i = total; i < 3; i++) expect((await ask(target, 'alice', binding)).status).toBe('OK');
      const runs = asks;
      const refused = await ask(target, 'alice', binding);
      // Refused before its skill ran.
      expect(asks).toBe(runs);
      expect(refused.status).toBe(RESOURCE_EXHAUSTED.grpcStatus);
      if (binding !== 'GRPC') expect(refused.httpStatus).toBe(RESOURCE_EXHAUSTED.http);
      if (binding === 'JSONRPC') expect(refused.jsonRpcCode).toBe(RESOURCE_EXHAUSTED.jsonRpc);
      if (binding === 'HTTP+JSON')
        expect(JSON.parse(refused.errorBody!).error.message).toBe(A2aMessages.tooManyTasks(3));
      // Another owner is not affected.
      expect((await ask(target, 'bob', binding)).status).toBe('OK');
    },
  );

  it('forgets the owner’s longest-ended task for a new one', async () => {
    const { ids } = await openTasksOf(target, 'alice');
    const canceled = await call(target, 'JSONRPC', 'CancelTask', { id: ids[0] }, as('alice'));
    expect(canceled.status).toBe('OK');
    expect((await ask(target, 'alice')).status).toBe('OK');
    expect((await call(target, 'JSONRPC', 'GetTask', { id: ids[0] }, as('alice'))).status).toBe('NOT_FOUND');
  });
});

async function openTasksOf(target: SecurityTarget, who: keyof typeof KEYS): Promise<{ total: number; ids: string[] }> {
  const listed = await call(target, 'JSONRPC', 'ListTasks', {}, as(who));
  const tasks = listed.result!.tasks as Json[];
  return { total: listed.result!.totalSize as number, ids: tasks.map((task) => task.id as string) };
}

/** A stream held open: `opened` once its first frame arrived, or refused with `refused` (the binding's error code). */
interface HeldStream {
  outcome: Promise<{ opened: true } | { refused: string; httpStatus?: number; jsonRpcCode?: number }>;
  close(): void;
}

function sseStream(
  target: SecurityTarget,
  binding: 'JSONRPC' | 'HTTP+JSON',
  operation: 'SubscribeToTask' | 'SendStreamingMessage',
  request: Json,
): HeldStream {
  const jsonRpc = binding === 'JSONRPC';
  const path = jsonRpc
    ? '/a2a/jsonrpc'
    : operation === 'SubscribeToTask'
      ? `/a2a/rest/tasks/${String(request.id)}:subscribe`
      : '/a2a/rest/message:stream';
  const body = jsonRpc
    ? { jsonrpc: '2.0', id: 1, method: operation, params: request }
    : operation === 'SubscribeToTask'
      ? undefined
      : request;
  // node:http, not fetch: closing destroys the connection, as a client that goes away does.
  const req = httpRequest(`${target.httpUrl}${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...as('bob') },
    agent: false,
  });
  const outcome = new Promise<Awaited<HeldStream['outcome']>>((resolve, reject) => {
    req.once('error', reject);
    req.once('response', (response) => {
      if (response.headers['content-type']?.startsWith('text/event-stream')) {
        response.once('data', () => resolve({ opened: true }));
        return;
      }
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.once('end', () => {
        const error = (JSON.parse(text) as { error: { code?: number; status?: string } }).error;
        const kind = Object.values(A2A_ERROR_CODES).find((code) =>
          jsonRpc ? code.jsonRpc === error.code : code.grpcStatus === error.status,
        );
        resolve({ refused: kind?.grpcStatus ?? 'UNKNOWN', httpStatus: response.statusCode, jsonRpcCode: error.code });
      });
    });
  });
  req.end(body ? JSON.stringify(body) : undefined);
  // A closed stream's request errors: nothing to report.
  outcome.catch(() => undefined);
  return { outcome, close: () => req.destroy() };
}

function grpcStream(
  target: SecurityTarget,
  operation: 'SubscribeToTask' | 'SendStreamingMessage',
  request: Json,
): HeldStream {
  const stream: ClientReadableStream<Json> = target.grpc.stream(operation, request, { 'x-api-key': KEYS.bob });
  const outcome = new Promise<{ opened: true } | { refused: string }>((resolve) => {
    stream.once('data', () => resolve({ opened: true }));
    stream.once('error', (error: ServiceError) => resolve({ refused: GrpcStatus[error.code] }));
  });
  stream.on('error', () => undefined);
  return { outcome, close: () => stream.cancel() };
}

// An app per binding: each case starts with no stream open.
describe.each(BINDINGS)('limits.maxStreamsPerPrincipal on %s', (binding) => {
  let probe: GrpcProbeApp;
  let target: SecurityTarget;
  let taskId: string;
  beforeAll(async () => {
    ({ probe, target } = await startTarget({ maxStreamsPerPrincipal: 2 }));
    taskId = ((await ask(target, 'bob')).result!.task as Json).id as string;
  });
  afterAll(async () => {
    target?.grpc.close();
    await probe?.app.close();
  });

  it('refuses the stream beyond it with resource exhausted, and frees a slot when a client goes away', async () => {
    const open = (operation: 'SubscribeToTask' | 'SendStreamingMessage', request: Json) =>
      binding === 'GRPC' ? grpcStream(target, operation, request) : sseStream(target, binding, operation, request);
    const subscribe = () => open('SubscribeToTask', { id: taskId });
    const held = [subscribe(), subscribe()];
    try {
      for (const stream of held) expect(await stream.outcome).toEqual({ opened: true });
      // Both kinds of stream count: a third, of either kind, is refused before it starts.
      for (const extra of [subscribe(), open('SendStreamingMessage', { message: message('slow 60000') })]) {
        const refused = await extra.outcome;
        expect(refused).toMatchObject({ refused: RESOURCE_EXHAUSTED.grpcStatus });
        if (binding !== 'GRPC') expect(refused).toMatchObject({ httpStatus: RESOURCE_EXHAUSTED.http });
        if (binding === 'JSONRPC') expect(refused).toMatchObject({ jsonRpcCode: RESOURCE_EXHAUSTED.jsonRpc });
      }
      // Alice has her own streams.
      expect((await call(target, binding, 'SendMessage', { message: message('echo hi') }, as('alice'))).status).toBe(
        'OK',
      );
      held.shift()!.close();
      // The server hears of the disconnect on its own time: the slot frees within a deadline.
      held.push(await openEventually(subscribe));
    } finally {
      for (const stream of held) stream.close();
    }
  });
});

/** Opens a stream, again while it is refused, within a deadline. */
async function openEventually(open: () => HeldStream): Promise<HeldStream> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const stream = open();
    const outcome = await stream.outcome;
    if ('opened' in outcome) return stream;
    if (Date.now() > deadline) throw new Error(`no stream slot freed: ${JSON.stringify(outcome)}`);
    await sleep(20);
  }
}

it.each([0, 2.5, -1])(
  'stops the app at bootstrap when limits.maxStreamsPerPrincipal is %d',
  async (maxStreamsPerPrincipal) => {
    @Module({
      imports: [
        A2aModule.forRoot({
          card: { name: 'Bad', description: 'Bad limit' },
          security,
          limits: { maxStreamsPerPrincipal },
        }),
      ],
      providers: [AskSkill],
    })
    class BadLimitModule {}
    const boot = Test.createTestingModule({ imports: [BadLimitModule] }).compile();
    await expect(boot).rejects.toThrow(InvalidA2aOptionsError);
    await expect(Test.createTestingModule({ imports: [BadLimitModule] }).compile()).rejects.toThrow(
      /^A2aModule option limits\.maxStreamsPerPrincipal /,
    );
  },
);
