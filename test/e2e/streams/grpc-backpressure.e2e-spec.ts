import * as grpc from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import http2 from 'node:http2';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadA2aProto } from '../../../libs/a2a/src/bindings/grpc/a2a-proto.loader.js';
import { MAX_UNSENT_EVENTS } from '../../../libs/a2a/src/bindings/batched-stream.writer.js';
import { GrpcJsonClient, type Json } from '../../fixtures/grpc-json.client.js';
import { startGrpcProbeApp, type GrpcProbeApp } from '../../fixtures/grpc-probe.fixture.js';
import { trickleSkill } from './trickle.skill.js';

/** 2,000 chunks of 1 KiB, 50 per event-loop turn. */
const TrickleSkill = trickleSkill(2000, 1024);

const proto = loadA2aProto().root;

function sendFrame(contextId: string): Buffer {
  const body = Buffer.from(
    proto
      .lookupType('lf.a2a.v1.SendMessageRequest')
      .encode({
        message: {
          message_id: randomUUID(),
          context_id: contextId,
          role: 1,
          parts: [{ text: 'go' }],
          metadata: { fields: { 'nestjs-a2a/skillId': { string_value: 'trickle' } } },
        },
      })
      .finish(),
  );
  const head = Buffer.alloc(5);
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

/** The StreamResponse messages in `body`, as plain objects; a message cut short at the end is left out. */
function messagesOf(body: Buffer): Array<Record<string, unknown>> {
  const type = proto.lookupType('lf.a2a.v1.StreamResponse');
  const messages: Array<Record<string, unknown>> = [];
  for (let at = 0; at + 5 <= body.length;) {
    const length = body.readUInt32BE(at + 1);
    if (at + 5 + length > body.length) break;
    messages.push(type.toObject(type.decode(body.subarray(at + 5, at + 5 + length))));
    at += 5 + length;
  }
  return messages;
}

/**
 * SendStreamingMessage over a raw HTTP/2 stream that reads nothing until `stalled` resolves, then everything until the
 * end.
 */
async function stalledStream(
  probe: GrpcProbeApp,
  contextId: string,
  stalled: () => Promise<void>,
): Promise<{ trailers: http2.IncomingHttpHeaders; body: Buffer }> {
  const session = http2.connect(`http://${probe.grpcAddress}`);
  try {
    const stream = session.request({
      ':method': 'POST',
      ':path': '/lf.a2a.v1.A2AService/SendStreamingMessage',
      'content-type': 'application/grpc',
      te: 'trailers',
      'a2a-version': '1.0',
    });
    let trailers: http2.IncomingHttpHeaders = {};
    stream.on('trailers', (received) => (trailers = received));
    stream.pause();
    stream.end(sendFrame(contextId));
    await stalled();
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.resume();
    await new Promise((resolve, reject) => {
      stream.once('end', resolve);
      stream.once('error', reject);
    });
    return { trailers, body: Buffer.concat(chunks) };
  } finally {
    session.close();
  }
}

/**
 * A gRPC client that stops reading its stream, on the direct path and through grpc-js
 * (`directDispatch: false`): the server holds at most MAX_UNSENT_EVENTS of its messages beyond what HTTP/2 buffers, then
 * ends that stream alone with UNAVAILABLE; the task itself completes. A client that reads gets a burst the skill emits
 * within one turn whole.
 */
describe.each([
  { path: 'the direct path', grpc: {} },
  { path: 'grpc-js', grpc: { directDispatch: false } },
])('on $path', ({ grpc: grpcOptions }) => {
  let probe: GrpcProbeApp;
  let client: GrpcJsonClient;

  beforeAll(async () => {
    // Shared anonymous callers: the test finds the stalled stream's task with ListTasks.
    probe = await startGrpcProbeApp({
      providers: [TrickleSkill],
      grpc: grpcOptions,
      a2a: { security: { anonymousCallers: 'shared' } },
    });
    client = new GrpcJsonClient(probe.grpcAddress);
  });
  afterAll(async () => {
    client?.close();
    await probe?.app.close();
  });

  /** The state of the one task in `contextId`, once the server lists it. */
  async function stateIn(contextId: string): Promise<string | undefined> {
    const { tasks } = (await client.unary('ListTasks', { contextId, historyLength: 0 })) as { tasks?: Json[] };
    return (tasks?.[0]?.status as Json | undefined)?.state as string | undefined;
  }

  it('ends only the stream of a client that does not read, with UNAVAILABLE, and the task completes', async () => {
    const contextId = randomUUID();
    // The client reads nothing until the task has produced all its 2,002 events (however slow the machine): the server
    // has then met the unread limit for certain.
    const { trailers, body } = await stalledStream(probe, contextId, async () => {
      for (let i = 0; i < 200 && (await stateIn(contextId)) !== 'TASK_STATE_COMPLETED'; i++) await sleep(50);
    });
    expect(trailers['grpc-status']).toBe(String(grpc.status.UNAVAILABLE));
    expect(decodeURIComponent(String(trailers['grpc-message']))).toContain('did not read');
    const messages = messagesOf(body);
    // What HTTP/2 buffered, plus at most MAX_UNSENT_EVENTS more: short of the 2,002 the task produced.
    expect(messages.length).toBeGreaterThan(1);
    expect(messages.length).toBeLessThan(2002);
    const taskId = (messages[0].task as { id: string }).id;
    expect(((await client.unary('GetTask', { id: taskId, historyLength: 0 })).status as Json).state).toBe(
      'TASK_STATE_COMPLETED',
    );
    expect(MAX_UNSENT_EVENTS).toBeLessThan(2000);
  });

  it('delivers a burst the skill emits within one turn to a client that reads, and OK', async () => {
    // The probe skill's `big`: 3,000 chunks, all in one turn.
    const events = await client.collect('SendStreamingMessage', {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'big 3000 10' }] },
    });
    expect(events).toHaveLength(1 + 3000 + 1);
    expect(Object.keys(events.at(-1)!)).toEqual(['statusUpdate']);
  });
});
