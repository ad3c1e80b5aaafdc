import * as grpc from '@grpc/grpc-js';
import { Module } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { A2aModule } from '../../../libs/a2a/src/index.js';
import { A2A_EVENT_BUS, InProcessEventBus } from '../../../libs/a2a/src/store.js';
import { connectA2aGrpc, grpcBinding } from '../../../libs/a2a/src/grpc.js';
import { Test } from '@nestjs/testing';
import { freePort, GrpcJsonClient, reasonOf, statusDetailsOf, type Json } from '../../fixtures/grpc-json.client.js';
import { ProbeSkill, startGrpcProbeApp, type GrpcProbeApp } from '../../fixtures/grpc-probe.fixture.js';
import { createTestApplication, startTestApp } from '../../fixtures/test-app.js';

/**
 * The gRPC binding (§10) over real sockets: every rpc of lf.a2a.v1.A2AService, the streams' lifecycle, and the error
 * mapping of spec §5.4 with google.rpc.Status details in `grpc-status-details-bin`.
 */

const message = (text: string, extra: Json = {}): Json => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});

let probe: GrpcProbeApp;
let client: GrpcJsonClient;

beforeAll(async () => {
  // The extensions the call-context test activates must be declared: others are ignored (spec §4.6.3).
  probe = await startGrpcProbeApp({
    a2a: {
      extensions: [{ uri: 'https://example.com/ext/a' }, { uri: 'https://example.com/ext/b' }],
      security: { anonymousCallers: 'shared' },
    },
  });
  client = new GrpcJsonClient(probe.grpcAddress);
});
afterAll(async () => {
  client?.close();
  await probe?.app.close();
});

async function failure(call: Promise<unknown>): Promise<grpc.ServiceError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeDefined();
  return error as grpc.ServiceError;
}

/** Polls `read` until it returns true, for at most ~5 s. */
async function eventually(read: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100 && !(await read()); i++) await sleep(50);
  expect(await read()).toBe(true);
}

describe('gRPC binding: card', () => {
  it('lists the GRPC interface (host:port) after the HTTP ones', async () => {
    const card = (await (await fetch(`${probe.httpUrl}/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: Json[];
    };
    expect(card.supportedInterfaces.map((i: Json) => i.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON', 'GRPC']);
    expect(card.supportedInterfaces[2]).toEqual({
      url: probe.grpcAddress,
      protocolBinding: 'GRPC',
      protocolVersion: '1.0',
    });
  });

  it('lists it only once the gRPC server listens, not when it is merely connected', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    @Module({
      imports: [
        A2aModule.forRoot({
          card: { name: 'Late gRPC', description: 'Started after HTTP' },
          bindings: [grpcBinding({ url: address })],
        }),
      ],
      providers: [ProbeSkill],
    })
    class LateGrpcModule {}
    const moduleRef = await Test.createTestingModule({ imports: [LateGrpcModule] }).compile();
    const app = createTestApplication(moduleRef);
    connectA2aGrpc(app);
    await app.listen(0, '127.0.0.1');
    const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    const bindingsOfCard = async () =>
      (
        (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as { supportedInterfaces: Json[] }
      ).supportedInterfaces.map((i) => i.protocolBinding);
    try {
      expect(await bindingsOfCard()).toEqual(['JSONRPC', 'HTTP+JSON']);
      await app.startAllMicroservices();
      expect(await bindingsOfCard()).toEqual(['JSONRPC', 'HTTP+JSON', 'GRPC']);
    } finally {
      await app.close();
    }
  });

  it('does not list it while connectA2aGrpc has not attached the binding', async () => {
    @Module({
      imports: [
        A2aModule.forRoot({
          card: { name: 'Unconnected', description: 'gRPC configured, never connected' },
          bindings: [grpcBinding({ url: '127.0.0.1:1' })],
        }),
      ],
      providers: [ProbeSkill],
    })
    class UnconnectedModule {}
    const { app, url } = await startTestApp(UnconnectedModule);
    try {
      const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as {
        supportedInterfaces: Json[];
      };
      expect(card.supportedInterfaces.map((i: Json) => i.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON']);
    } finally {
      await app.close();
    }
  });
});

describe('gRPC binding: malformed input on the wire', () => {
  it('a malformed grpc-timeout is ignored: the call is answered as without one, not INTERNAL', async () => {
    // grpc-js answers INTERNAL itself; A2aGrpcServer drops the header first (it reads grpc-js internals: this pins them).
    const error = await failure(client.unary('GetTask', { id: randomUUID() }, { 'grpc-timeout': 'soon' }));
    expect(error.code).toBe(grpc.status.NOT_FOUND);
    expect(reasonOf(error)).toBe('TASK_NOT_FOUND');
    const valid = await failure(client.unary('GetTask', { id: randomUUID() }, { 'grpc-timeout': '5S' }));
    expect(valid.code).toBe(grpc.status.NOT_FOUND);
  });

  it('an options factory gives grpcBinding its address (forRootAsync-style)', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    @Module({
      imports: [
        A2aModule.forRoot({
          card: { name: 'Async gRPC', description: 'Address from a factory' },
          bindings: [grpcBinding({ useFactory: async () => ({ url: address }) })],
        }),
      ],
      providers: [ProbeSkill],
    })
    class AsyncGrpcModule {}
    const moduleRef = await Test.createTestingModule({ imports: [AsyncGrpcModule] }).compile();
    const app = createTestApplication(moduleRef);
    connectA2aGrpc(app);
    await app.startAllMicroservices();
    await app.init();
    const asyncClient = new GrpcJsonClient(address);
    try {
      expect((await failure(asyncClient.unary('GetTask', { id: 'x' }))).code).toBe(grpc.status.NOT_FOUND);
    } finally {
      asyncClient.close();
      await app.close();
    }
  });
});

describe('gRPC binding: unary rpcs', () => {
  it('SendMessage runs a task to completion and returns it', async () => {
    const response = await client.unary('SendMessage', { message: message('echo hello grpc') });
    const task = response.task as Json;
    expect(task.status).toMatchObject({ state: 'TASK_STATE_COMPLETED' });
    expect(task.artifacts).toEqual([{ artifactId: expect.any(String), name: 'echo', parts: [{ text: 'hello grpc' }] }]);
    expect(task.contextId).toEqual(expect.any(String));
  });

  it('SendMessage returns a direct Message reply', async () => {
    const response = await client.unary('SendMessage', { message: message('message hi there') });
    expect(response).toEqual({
      message: expect.objectContaining({ role: 'ROLE_AGENT', parts: [{ text: 'hi there' }] }),
    });
  });

  it('carries Value, bytes and url parts intact', async () => {
    const { task } = (await client.unary('SendMessage', { message: message('data') })) as { task: Json };
    expect((task.artifacts as Json[])[0].parts).toEqual([
      { data: { ok: true, n: 42, list: [1, 'a', null, { deep: [] }], empty: {} }, mediaType: 'application/json' },
      { raw: Buffer.from('hello').toString('base64'), filename: 'hello.txt', mediaType: 'text/plain' },
      { url: 'https://example.com/a.pdf', mediaType: 'application/pdf' },
    ]);
  });

  it('GetTask, ListTasks and historyLength', async () => {
    const { task } = (await client.unary('SendMessage', { message: message('echo listed') })) as { task: Json };
    const got = await client.unary('GetTask', { id: task.id as string, historyLength: 0 });
    expect(got).toMatchObject({ id: task.id, status: { state: 'TASK_STATE_COMPLETED' } });
    expect(got.history).toBeUndefined();
    const withHistory = await client.unary('GetTask', { id: task.id as string });
    expect((withHistory.history as Json[])[0]).toMatchObject({ role: 'ROLE_USER', parts: [{ text: 'echo listed' }] });

    const page = await client.unary('ListTasks', { contextId: task.contextId as string, includeArtifacts: true });
    expect(page).toMatchObject({ pageSize: 50, totalSize: 1 });
    expect((page.tasks as Json[]).map((t) => t.id)).toEqual([task.id]);
    expect((page.tasks as Json[])[0].artifacts).toHaveLength(1);
    const filtered = await client.unary('ListTasks', {
      status: 'TASK_STATE_FAILED',
      contextId: task.contextId as string,
    });
    expect(filtered.tasks).toBeUndefined(); // an empty repeated field is absent on the wire
  });

  it('CancelTask cancels a running task; a second cancel is idempotent', async () => {
    const { task } = (await client.unary('SendMessage', {
      message: message('slow 60000'),
      configuration: { returnImmediately: true },
    })) as { task: Json };
    expect(task.status).toMatchObject({ state: 'TASK_STATE_WORKING' });
    const canceled = await client.unary('CancelTask', { id: task.id as string });
    expect(canceled.status).toMatchObject({ state: 'TASK_STATE_CANCELED' });
    expect((await client.unary('CancelTask', { id: task.id as string })).status).toMatchObject({
      state: 'TASK_STATE_CANCELED',
    });
  });

  it('service parameters and tenant reach the call context', async () => {
    const { task } = (await client.unary(
      'SendMessage',
      { tenant: 'acme', message: message('context') },
      { 'a2a-version': '1.0.3', 'a2a-extensions': 'https://example.com/ext/a, https://example.com/ext/b' },
    )) as { task: Json };
    expect((task.artifacts as Json[])[0].parts).toEqual([
      {
        data: {
          tenant: 'acme',
          binding: 'GRPC',
          version: '1.0',
          extensions: ['https://example.com/ext/a', 'https://example.com/ext/b'],
          principal: 'anonymous',
        },
        mediaType: 'application/json',
      },
    ]);
    // The tenant scopes the task (spec §8.3.2): other tenants do not see it.
    expect(await client.unary('GetTask', { tenant: 'acme', id: task.id as string })).toMatchObject({ id: task.id });
    expect((await failure(client.unary('GetTask', { id: task.id as string }))).code).toBe(grpc.status.NOT_FOUND);
  });
});

describe('gRPC binding: streaming rpcs', () => {
  it('SendStreamingMessage streams the task, then its events, and ends OK at the terminal state', async () => {
    const events = await client.collect('SendStreamingMessage', { message: message('echo streamed') });
    expect(Object.keys(events[0])).toEqual(['task']);
    const kinds = events.map((e) => Object.keys(e)[0]);
    expect(kinds).toContain('artifactUpdate');
    expect(events.at(-1)).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } });
  });

  it('SendStreamingMessage of a direct reply is exactly one message (spec §3.1.2)', async () => {
    const events = await client.collect('SendStreamingMessage', { message: message('message once') });
    expect(events).toEqual([{ message: expect.objectContaining({ parts: [{ text: 'once' }] }) }]);
  });

  it('SubscribeToTask starts with the task and ends at the terminal state (spec §3.1.6)', async () => {
    const { task } = (await client.unary('SendMessage', {
      message: message('slow 300'),
      configuration: { returnImmediately: true },
    })) as { task: Json };
    const events = await client.collect('SubscribeToTask', { id: task.id as string });
    expect(events[0]).toMatchObject({ task: { id: task.id } });
    expect(events.at(-1)).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } });
  });

  it('an error known before the first event ends the stream with that status and no event', async () => {
    const stream = client.collect('SendStreamingMessage', { message: message('echo x', { taskId: 'no-such-task' }) });
    const error = await failure(stream);
    expect(error.code).toBe(grpc.status.NOT_FOUND);
    expect(reasonOf(error)).toBe('TASK_NOT_FOUND');
  });

  it('a client that cancels releases the stream but the task runs on (spec §3.5.2)', async () => {
    const bus = probe.app.get<InProcessEventBus>(A2A_EVENT_BUS);
    const stream = client.stream('SendStreamingMessage', { message: message('slow 400') });
    const first = await new Promise<Json>((resolve) => stream.once('data', resolve));
    const taskId = (first.task as Json).id as string;
    stream.on('error', () => undefined); // the client's own CANCELLED
    expect(bus.watchedTaskCount).toBeGreaterThan(0);
    stream.cancel();
    await eventually(() => bus.watchedTaskCount === 0);
    await eventually(
      async () => ((await client.unary('GetTask', { id: taskId })).status as Json).state === 'TASK_STATE_COMPLETED',
    );
  });

  it('a paused reader gets every event, in order, once it resumes (the server waits for drain)', async () => {
    const chunks = 40;
    const stream = client.stream('SendStreamingMessage', { message: message(`big ${chunks} 65536`) });
    const events: Json[] = [];
    stream.on('data', (event: Json) => events.push(event));
    stream.pause();
    // 2.5 MB of events against HTTP/2's 64 KiB window: the server has to wait for the reader.
    await sleep(200);
    stream.resume();
    await new Promise((resolve, reject) => stream.on('end', resolve).on('error', reject));
    const updates = events
      .filter((e) => 'artifactUpdate' in e)
      .map((e) => ((e.artifactUpdate as Json).artifact as Json).parts as Json[]);
    expect(updates.map((parts) => (parts[0].text as string).split(':')[0])).toEqual(
      Array.from({ length: chunks }, (_, i) => String(i)),
    );
    expect(events.at(-1)).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } });
  });
});

describe('gRPC binding: errors (spec §5.4)', () => {
  it('unknown task: NOT_FOUND with ErrorInfo TASK_NOT_FOUND in grpc-status-details-bin', async () => {
    const error = await failure(client.unary('GetTask', { id: 'missing-task' }));
    expect(error.code).toBe(grpc.status.NOT_FOUND);
    expect(error.details).toBe('Task missing-task not found');
    expect(statusDetailsOf(error)).toEqual({
      code: grpc.status.NOT_FOUND,
      message: 'Task missing-task not found',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'TASK_NOT_FOUND',
          domain: 'a2a-protocol.org',
          metadata: { taskId: 'missing-task' },
        },
      ],
    });
  });

  it('missing required field: INVALID_ARGUMENT naming the field, with a BadRequest', async () => {
    const error = await failure(client.unary('SendMessage', {}));
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error.details).toMatch(/message/);
    expect(statusDetailsOf(error)?.details).toEqual([
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INVALID_PARAMS', domain: 'a2a-protocol.org' },
      {
        '@type': 'type.googleapis.com/google.rpc.BadRequest',
        fieldViolations: [{ field: 'message', description: 'Required' }],
      },
    ]);
    const noParts = await failure(client.unary('SendMessage', { message: { messageId: 'm-1', role: 'ROLE_USER' } }));
    expect(noParts.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(noParts.details).toMatch(/message\.parts/);
    const noId = await failure(client.unary('GetTask', {}));
    expect(noId.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(noId.details).toMatch(/\bid\b/);
  });

  it('a frame that is not the request message: INVALID_ARGUMENT, and the server keeps serving', async () => {
    const garbage = await new Promise<grpc.ServiceError>((resolve) =>
      client.client.makeUnaryRequest(
        '/lf.a2a.v1.A2AService/SendMessage',
        // Field 2 (message) announces 5 bytes and has 1.
        () => Buffer.from([0x12, 0x05, 0x0a]),
        (b: Buffer) => b,
        {},
        new grpc.Metadata(),
        {},
        (error) => resolve(error!),
      ),
    );
    expect(garbage.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(garbage.details).toMatch(/not a valid lf\.a2a\.v1\.SendMessageRequest/);
    expect(reasonOf(garbage)).toBe('PARSE_ERROR');
    expect(await client.unary('SendMessage', { message: message('echo still here') })).toMatchObject({
      task: { status: { state: 'TASK_STATE_COMPLETED' } },
    });
  });

  it('a frame larger than limits.maxBodyBytes: RESOURCE_EXHAUSTED', async () => {
    const error = await failure(client.unary('SendMessage', { message: message('x'.repeat(1024 * 1024 + 1)) }));
    expect(error.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
  });

  it.each([
    ['CancelTask of a terminal task', 'TASK_NOT_CANCELABLE', async (id: string) => client.unary('CancelTask', { id })],
    [
      'SubscribeToTask of a terminal task',
      'UNSUPPORTED_OPERATION',
      async (id: string) => client.collect('SubscribeToTask', { id }),
    ],
    [
      'a message to a terminal task',
      'UNSUPPORTED_OPERATION',
      async (id: string) => client.unary('SendMessage', { message: message('echo again', { taskId: id }) }),
    ],
  ])('%s: FAILED_PRECONDITION %s', async (_name, reason, call) => {
    const { task } = (await client.unary('SendMessage', { message: message('echo done') })) as { task: Json };
    const error = await failure(call(task.id as string));
    expect(error.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(reasonOf(error)).toBe(reason);
  });

  it.each([
    ['CreateTaskPushNotificationConfig', { taskId: 't-1', url: 'https://hooks.example.com/a2a' }],
    ['GetTaskPushNotificationConfig', { taskId: 't-1', id: 'c-1' }],
    ['ListTaskPushNotificationConfigs', { taskId: 't-1' }],
    ['DeleteTaskPushNotificationConfig', { taskId: 't-1', id: 'c-1' }],
  ])('%s: FAILED_PRECONDITION PUSH_NOTIFICATION_NOT_SUPPORTED (spec §3.3.4)', async (rpc, request) => {
    const error = await failure(client.unary(rpc, request));
    expect(error.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(reasonOf(error)).toBe('PUSH_NOTIFICATION_NOT_SUPPORTED');
  });

  it('GetExtendedAgentCard: FAILED_PRECONDITION UNSUPPORTED_OPERATION (spec §3.3.4)', async () => {
    const error = await failure(client.unary('GetExtendedAgentCard', {}));
    expect(error.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(reasonOf(error)).toBe('UNSUPPORTED_OPERATION');
  });

  it('an unsupported a2a-version: FAILED_PRECONDITION VERSION_NOT_SUPPORTED', async () => {
    const error = await failure(client.unary('GetTask', { id: 'x' }, { 'a2a-version': '0.3' }));
    expect(error.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(reasonOf(error)).toBe('VERSION_NOT_SUPPORTED');
  });

  it('an rpc the service does not have: UNIMPLEMENTED', async () => {
    const error = await new Promise<grpc.ServiceError>((resolve) =>
      client.client.makeUnaryRequest(
        '/lf.a2a.v1.A2AService/Nope',
        () => Buffer.alloc(0),
        (b: Buffer) => b,
        {},
        new grpc.Metadata(),
        {},
        (e) => resolve(e!),
      ),
    );
    expect(error.code).toBe(grpc.status.UNIMPLEMENTED);
  });
});
