import * as grpc from '@grpc/grpc-js';
import {
  Injectable,
  type CallHandler,
  type CanActivate,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import http2 from 'node:http2';
import { gzipSync } from 'node:zlib';
import type { Observable } from 'rxjs';
import { loadA2aProto } from '../../../libs/a2a/src/bindings/grpc/a2a-proto.loader.js';
import { GrpcJsonClient, reasonOf, statusDetailsOf, type Json } from '../../fixtures/grpc-json.client.js';
import { startGrpcProbeApp, type GrpcProbeApp } from '../../fixtures/grpc-probe.fixture.js';

/**
 * The direct gRPC path (DirectGrpcDispatcher): A2A calls, unary and server-streaming, served from the HTTP/2 stream,
 * past grpc-js's per-call machinery, through the same Nest pipeline. Every answer must be the one grpc-js's path gives
 * (`grpcBinding({ directDispatch: false })`), bytes on the wire included, and what grpc-js does with framing, deadlines
 * and sizes must hold on both.
 */

/** What the app's global guard saw of each call: the class of its third argument and what it reads off it. */
@Injectable()
class CallRecorder implements CanActivate {
  static readonly calls: Array<{ kind: string; peer: string; path: string; deadline: unknown; request: unknown }> = [];

  canActivate(context: ExecutionContext): boolean {
    const call = context.getArgByIndex<grpc.ServerUnaryCall<object, object>>(2);
    CallRecorder.calls.push({
      kind: call.constructor.name,
      peer: call.getPeer(),
      path: call.getPath(),
      deadline: call.getDeadline(),
      request: call.request,
    });
    return true;
  }
}

/** Sends initial metadata from an interceptor, as an app might (a request id). */
@Injectable()
class RequestIdInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const metadata = new grpc.Metadata();
    metadata.set('x-request-id', 'r-1');
    context.getArgByIndex<grpc.ServerUnaryCall<object, object>>(2).sendMetadata(metadata);
    return next.handle();
  }
}

const proto = loadA2aProto().root;
const message = (text: string): Json => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] });

function frame(type: string, fields: Record<string, unknown>, compressed = false): Buffer {
  const body = Buffer.from(proto.lookupType(type).encode(fields).finish());
  const payload = compressed ? gzipSync(body) : body;
  const head = Buffer.alloc(5);
  head.writeUInt8(compressed ? 1 : 0, 0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

interface RawAnswer {
  headers: http2.IncomingHttpHeaders;
  trailers: http2.IncomingHttpHeaders;
  body: Buffer;
}

/** One call over a raw HTTP/2 stream: what the server put on the wire, unparsed. */
async function rawCall(
  address: string,
  rpc: string,
  body: Buffer,
  headers: http2.OutgoingHttpHeaders = {},
): Promise<RawAnswer> {
  const session = http2.connect(`http://${address}`);
  try {
    return await new Promise<RawAnswer>((resolve, reject) => {
      const stream = session.request({
        ':method': 'POST',
        ':path': `/lf.a2a.v1.A2AService/${rpc}`,
        'content-type': 'application/grpc',
        te: 'trailers',
        'a2a-version': '1.0',
        ...headers,
      });
      const answer: RawAnswer = { headers: {}, trailers: {}, body: Buffer.alloc(0) };
      const chunks: Buffer[] = [];
      stream.on('response', (h) => (answer.headers = h));
      stream.on('trailers', (t) => (answer.trailers = t));
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => resolve({ ...answer, body: Buffer.concat(chunks) }));
      stream.on('error', reject);
      stream.end(body);
    });
  } finally {
    session.close();
  }
}

/** The StreamResponse messages of a raw server stream's body, as plain objects. */
function messagesOf(body: Buffer): Array<Record<string, unknown>> {
  const type = proto.lookupType('lf.a2a.v1.StreamResponse');
  const messages: Array<Record<string, unknown>> = [];
  for (let at = 0; at < body.length;) {
    const length = body.readUInt32BE(at + 1);
    messages.push(type.toObject(type.decode(body.subarray(at + 5, at + 5 + length))));
    at += 5 + length;
  }
  return messages;
}

/** The grpc-status of a raw answer: in the trailers, or in the headers of a trailers-only answer. */
const statusOf = (answer: RawAnswer) => Number(answer.trailers['grpc-status'] ?? answer.headers['grpc-status']);

let direct: GrpcProbeApp;
let viaGrpcJs: GrpcProbeApp;
let directClient: GrpcJsonClient;
let grpcJsClient: GrpcJsonClient;

beforeAll(async () => {
  const options = {
    providers: [
      { provide: APP_GUARD, useClass: CallRecorder },
      { provide: APP_INTERCEPTOR, useClass: RequestIdInterceptor },
    ],
    a2a: { extensions: [{ uri: 'https://example.com/ext/a' }], security: { anonymousCallers: 'shared' as const } },
  };
  direct = await startGrpcProbeApp(options);
  viaGrpcJs = await startGrpcProbeApp({ ...options, grpc: { directDispatch: false } });
  directClient = new GrpcJsonClient(direct.grpcAddress);
  grpcJsClient = new GrpcJsonClient(viaGrpcJs.grpcAddress);
});
afterAll(async () => {
  directClient?.close();
  grpcJsClient?.close();
  await direct?.app.close();
  await viaGrpcJs?.app.close();
});
beforeEach(() => (CallRecorder.calls.length = 0));

describe('direct gRPC path: the Nest pipeline', () => {
  it('serves unary rpcs through the app guard with a ServerUnaryCall surface; grpc-js serves them when it is off', async () => {
    await directClient.unary('SendMessage', { message: message('echo hi') });
    await grpcJsClient.unary('SendMessage', { message: message('echo hi') });
    // grpc-js hands unary handlers a ServerWritableStreamImpl.
    expect(CallRecorder.calls.map((call) => call.kind)).toEqual(['DirectGrpcCall', 'ServerWritableStreamImpl']);
    for (const call of CallRecorder.calls) {
      expect(call.peer).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(call.path).toBe('/lf.a2a.v1.A2AService/SendMessage');
      expect(call.deadline).toBe(Infinity);
      expect(call.request).toHaveProperty('message');
    }
  });

  it('serves streaming rpcs the same way; grpc-js serves them when it is off', async () => {
    const [ours, theirs] = await Promise.all([
      directClient.collect('SendStreamingMessage', { message: message('echo streamed') }),
      grpcJsClient.collect('SendStreamingMessage', { message: message('echo streamed') }),
    ]);
    expect(ours.map((event) => Object.keys(event))).toEqual(theirs.map((event) => Object.keys(event)));
    expect(Object.keys(ours.at(-1)!)).toEqual(['statusUpdate']);
    expect(CallRecorder.calls.map((call) => call.kind).sort()).toEqual(['DirectGrpcCall', 'ServerWritableStreamImpl']);
  });

  it('a deadline reaches the call as grpc-js gives it', async () => {
    const before = Date.now();
    const metadata = { 'grpc-timeout': '5S' };
    await Promise.all([directClient.unary('ListTasks', {}, metadata), grpcJsClient.unary('ListTasks', {}, metadata)]);
    for (const { deadline } of CallRecorder.calls) expect(deadline).toBeGreaterThanOrEqual(before + 4000);
  });
});

describe('direct gRPC path: the same bytes as grpc-js', () => {
  const cases: Array<[string, string, () => Buffer, http2.OutgoingHttpHeaders?]> = [
    [
      'a task not found (status details trailer)',
      'GetTask',
      () => frame('lf.a2a.v1.GetTaskRequest', { id: 'no-such-task' }),
    ],
    [
      'invalid params (a BadRequest)',
      'SendMessage',
      () => frame('lf.a2a.v1.SendMessageRequest', { message: { message_id: '', role: 1, parts: [] } }),
    ],
    [
      'an unsupported version',
      'GetTask',
      () => frame('lf.a2a.v1.GetTaskRequest', { id: 'x' }),
      { 'a2a-version': '9.0' },
    ],
    ['bytes that are not the message', 'GetTask', () => Buffer.from([0, 0, 0, 0, 3, 0xff, 0xff, 0xff])],
    [
      'an activated extension (a2a-extensions header)',
      'ListTasks',
      () => frame('lf.a2a.v1.ListTasksRequest', { context_id: randomUUID() }),
      { 'a2a-extensions': 'https://example.com/ext/a' },
    ],
    [
      'a stream of a task not found',
      'SubscribeToTask',
      () => frame('lf.a2a.v1.SubscribeToTaskRequest', { id: 'no-such-task' }),
    ],
    [
      'a streamed send with invalid params',
      'SendStreamingMessage',
      () => frame('lf.a2a.v1.SendMessageRequest', { message: { message_id: '', role: 1, parts: [] } }),
    ],
    [
      'a stream in an unsupported version',
      'SubscribeToTask',
      () => frame('lf.a2a.v1.SubscribeToTaskRequest', { id: 'x' }),
      { 'a2a-version': '9.0' },
    ],
  ];

  // A default, not a fourth parameter: jest would take that for a `done` callback.
  it.each(cases)('%s', async (_name, rpc, body, headers = {}) => {
    const [ours, theirs] = await Promise.all([
      rawCall(direct.grpcAddress, rpc, body(), headers),
      rawCall(viaGrpcJs.grpcAddress, rpc, body(), headers),
    ]);
    const { date: _a, ...ourHeaders } = ours.headers;
    const { date: _b, ...theirHeaders } = theirs.headers;
    expect(ourHeaders).toEqual(theirHeaders);
    expect(ours.trailers).toEqual(theirs.trailers);
    expect(ours.body).toEqual(theirs.body);
  });

  it('a streamed answer: headers, one message per event, and trailers', async () => {
    const send = () =>
      frame('lf.a2a.v1.SendMessageRequest', {
        message: { message_id: randomUUID(), role: 1, parts: [{ text: 'big 5 10' }] },
      });
    const [ours, theirs] = await Promise.all([
      rawCall(direct.grpcAddress, 'SendStreamingMessage', send()),
      rawCall(viaGrpcJs.grpcAddress, 'SendStreamingMessage', send()),
    ]);
    const { date: _a, ...ourHeaders } = ours.headers;
    const { date: _b, ...theirHeaders } = theirs.headers;
    expect(ourHeaders).toEqual(theirHeaders);
    expect(ours.trailers).toEqual(theirs.trailers);
    expect(ours.trailers['grpc-status']).toBe('0');
    const kinds = (answer: RawAnswer) => messagesOf(answer.body).map((event) => Object.keys(event).join());
    expect(kinds(ours)).toEqual(kinds(theirs));
    // The skill's first event (WORKING) is the task's creation.
    expect(kinds(ours)).toEqual(['task', ...Array(5).fill('artifact_update'), 'status_update']);
  });

  it('an answer: headers (with what an interceptor sent), message and trailers', async () => {
    const ours = await rawCall(
      direct.grpcAddress,
      'ListTasks',
      frame('lf.a2a.v1.ListTasksRequest', { context_id: randomUUID() }),
    );
    const theirs = await rawCall(
      viaGrpcJs.grpcAddress,
      'ListTasks',
      frame('lf.a2a.v1.ListTasksRequest', { context_id: randomUUID() }),
    );
    const { date: _a, ...ourHeaders } = ours.headers;
    const { date: _b, ...theirHeaders } = theirs.headers;
    expect(ourHeaders).toEqual(theirHeaders);
    expect(ourHeaders['x-request-id']).toBe('r-1');
    expect(ours.trailers).toEqual({ ...theirs.trailers });
    expect(ours.trailers['grpc-status']).toBe('0');
    expect(ours.body).toEqual(theirs.body);
  });
});

describe('direct gRPC path: framing, sizes and deadlines, as grpc-js', () => {
  it('no request message: UNIMPLEMENTED', async () => {
    const answer = await rawCall(direct.grpcAddress, 'GetTask', Buffer.alloc(0));
    expect(statusOf(answer)).toBe(grpc.status.UNIMPLEMENTED);
    expect(statusOf(await rawCall(direct.grpcAddress, 'GetTask', Buffer.from([0, 0, 0, 0, 9, 1])))).toBe(
      grpc.status.UNIMPLEMENTED,
    );
  });

  it('two request messages: UNIMPLEMENTED', async () => {
    const one = frame('lf.a2a.v1.GetTaskRequest', { id: 'x' });
    expect(statusOf(await rawCall(direct.grpcAddress, 'GetTask', Buffer.concat([one, one])))).toBe(
      grpc.status.UNIMPLEMENTED,
    );
  });

  it('a frame declaring more than limits.maxBodyBytes: RESOURCE_EXHAUSTED before the rest arrives', async () => {
    const head = Buffer.from([0, 0x7f, 0xff, 0xff, 0xff]);
    const answer = await rawCall(direct.grpcAddress, 'GetTask', head);
    expect(statusOf(answer)).toBe(grpc.status.RESOURCE_EXHAUSTED);
  });

  it('a compressed request is served by grpc-js, which inflates it', async () => {
    const sent = await directClient.unary('SendMessage', { message: message('echo before') });
    const id = (sent.task as Json).id as string;
    CallRecorder.calls.length = 0;
    const answer = await rawCall(direct.grpcAddress, 'GetTask', frame('lf.a2a.v1.GetTaskRequest', { id }, true), {
      'grpc-encoding': 'gzip',
    });
    expect(statusOf(answer)).toBe(grpc.status.OK);
    expect(CallRecorder.calls.map((call) => call.kind)).toEqual(['ServerWritableStreamImpl']);
  });

  it('a deadline that passes first: the server answers DEADLINE_EXCEEDED, and the task runs on to completion', async () => {
    const messageId = randomUUID();
    const request = frame('lf.a2a.v1.SendMessageRequest', {
      message: { message_id: messageId, role: 1, parts: [{ text: 'slow 400' }] },
    });
    // A raw HTTP/2 client keeps no deadline of its own: the status can only come from the server.
    const answer = await rawCall(direct.grpcAddress, 'SendMessage', request, { 'grpc-timeout': '100m' });
    expect(statusOf(answer)).toBe(grpc.status.DEADLINE_EXCEEDED);
    const stateOfOurTask = async () => {
      const page = await directClient.unary('ListTasks', { historyLength: 1 });
      const ours = (page.tasks as Json[]).find(
        (task) => ((task.history as Json[] | undefined)?.[0] as Json | undefined)?.messageId === messageId,
      );
      return (ours?.status as Json | undefined)?.state;
    };
    for (let i = 0; i < 40 && (await stateOfOurTask()) !== 'TASK_STATE_COMPLETED'; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await stateOfOurTask()).toBe('TASK_STATE_COMPLETED');
  });

  it('a grpc-timeout past what a timer can wait is no deadline, on either path (grpc-js would wrap it into an instant one)', async () => {
    // 3,000,000 s is 3e9 ms: past 2^31 − 1, and negative once wrapped to 32 bits.
    const far = { 'grpc-timeout': '3000000S' };
    const slow = () =>
      frame('lf.a2a.v1.SendMessageRequest', {
        message: { message_id: randomUUID(), role: 1, parts: [{ text: 'slow 150' }] },
      });
    const [unary, streamed] = await Promise.all([
      rawCall(direct.grpcAddress, 'SendMessage', slow(), far),
      rawCall(direct.grpcAddress, 'SendStreamingMessage', slow(), far),
    ]);
    expect(statusOf(unary)).toBe(grpc.status.OK);
    expect(statusOf(streamed)).toBe(grpc.status.OK);
  });

  it('a malformed grpc-timeout is ignored, as on grpc-js’s path', async () => {
    const error = await directClient.unary('GetTask', { id: randomUUID() }, { 'grpc-timeout': 'soon' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as grpc.ServiceError).code).toBe(grpc.status.NOT_FOUND);
    expect(reasonOf(error)).toBe('TASK_NOT_FOUND');
    expect(statusDetailsOf(error)).toBeDefined();
  });
});
