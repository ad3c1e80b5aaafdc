import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_UNSENT_EVENTS } from '../../../libs/a2a/src/bindings/batched-stream.writer.js';
import { startGrpcProbeApp, type GrpcProbeApp } from '../../fixtures/grpc-probe.fixture.js';
import { trickleSkill } from './trickle.skill.js';

/** 4,000 chunks of 4 KiB, 50 per event-loop turn. */
const TrickleSkill = trickleSkill(4000, 4096);

/**
 * A client that stops reading an SSE stream: the server holds at most MAX_UNSENT_EVENTS of its events
 * beyond what the socket buffers, then closes that stream alone with an error frame; the task itself completes.
 */
let probe: GrpcProbeApp;

beforeAll(async () => {
  // Shared anonymous callers: the test finds the stalled stream's task with ListTasks.
  probe = await startGrpcProbeApp({ providers: [TrickleSkill], a2a: { security: { anonymousCallers: 'shared' } } });
});
afterAll(() => probe?.app.close());

/** Sends `body` to `path` over a raw socket that reads nothing until `stalled` resolves, then all until the server ends. */
async function stalledRead(path: string, body: string, stalled: () => Promise<void>): Promise<string> {
  const { port } = new URL(probe.httpUrl);
  const socket = connect(Number(port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.pause();
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  await stalled();
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.resume();
  await new Promise((resolve) => socket.once('close', resolve));
  return Buffer.concat(chunks).toString('utf8');
}

/** The state of the one task in `contextId`, once the server lists it. */
async function stateIn(contextId: string): Promise<string | undefined> {
  const response = await fetch(`${probe.httpUrl}/a2a/rest/tasks?contextId=${contextId}&historyLength=0`, {
    headers: { 'a2a-version': '1.0' },
  });
  const { tasks } = (await response.json()) as { tasks?: Array<{ status: { state: string } }> };
  return tasks?.[0]?.status.state;
}

it('closes only the stream of a client that does not read, with an error frame, and the task completes', async () => {
  // 16 MiB in all: far more than loopback socket buffers plus the stream's allowance of unsent events.
  const contextId = 'slow-reader-context';
  const body = JSON.stringify({
    message: {
      messageId: 'slow-reader',
      contextId,
      role: 'ROLE_USER',
      parts: [{ text: 'go' }],
      metadata: { 'nestjs-a2a/skillId': 'trickle' },
    },
  });
  // The client reads nothing until the task has produced all its events (however slow the machine): the server has
  // then met the unread limit for certain.
  const answer = await stalledRead('/a2a/rest/message:stream', body, async () => {
    for (let i = 0; i < 300 && (await stateIn(contextId)) !== 'TASK_STATE_COMPLETED'; i++) await sleep(50);
  });
  const events = answer.split('\n\n').filter((frame) => frame.includes('data: ')).length;
  expect(answer).toContain('event: error');
  expect(answer).toContain('did not read it');
  expect(events).toBeLessThan(4000);
  expect(events).toBeGreaterThan(MAX_UNSENT_EVENTS / 4);
  const taskId = /"taskId":"([^"]+)"/.exec(answer)?.[1] ?? /"id":"([^"]+)"/.exec(answer)![1];
  const task = (await (
    await fetch(`${probe.httpUrl}/a2a/rest/tasks/${taskId}?historyLength=0`, { headers: { 'a2a-version': '1.0' } })
  ).json()) as { status: { state: string } };
  expect(task.status.state).toBe('TASK_STATE_COMPLETED');
}, 30_000);

it('delivers a burst the skill emits within one turn to a client that reads', async () => {
  const response = await fetch(`${probe.httpUrl}/a2a/rest/message:stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({ message: { messageId: 'burst', role: 'ROLE_USER', parts: [{ text: 'big 3000 1024' }] } }),
  });
  const text = await response.text();
  expect(text).not.toContain('event: error');
  // The task (already WORKING), every chunk, the final status.
  expect(text.split('\n\n').filter((frame) => frame.includes('data: '))).toHaveLength(1 + 3000 + 1);
}, 30_000);

/** Writes raw HTTP/1.1 requests on one socket; resolves with all it read once the server closes it or `waitMs` passes. */
async function rawExchange(requests: string[], waitMs: number): Promise<{ text: string; closedByServer: boolean }> {
  const { port } = new URL(probe.httpUrl);
  const socket = connect(Number(port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise<boolean>((resolve) => socket.once('close', () => resolve(true)));
  socket.write(requests.join(''));
  const closedByServer = await Promise.race([closed, sleep(waitMs).then(() => false)]);
  socket.destroy();
  return { text: Buffer.concat(chunks).toString('utf8'), closedByServer };
}

function streamRequest(messageId: string, connection: 'close' | 'keep-alive'): string {
  const body = JSON.stringify({ message: { messageId, role: 'ROLE_USER', parts: [{ text: 'big 2 8' }] } });
  return `POST /a2a/rest/message:stream HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\nConnection: ${connection}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

// RFC 9112 §9.6: a server that receives "close" closes the connection after its response; the SSE response used to
// answer `Connection: keep-alive` regardless, which left the socket open until the server's keep-alive timeout.
it("honours a client's Connection: close on a stream, and keeps the connection alive otherwise", async () => {
  const closing = await rawExchange([streamRequest('conn-close', 'close')], 4000);
  expect(closing.closedByServer).toBe(true);
  expect(closing.text).toMatch(/\r\nconnection: close\r\n/i);
  expect(closing.text).toContain('TASK_STATE_COMPLETED');

  // Two streams on one keep-alive connection: both answered, and the socket stays open after them.
  const kept = await rawExchange(
    [streamRequest('conn-keep-1', 'keep-alive'), streamRequest('conn-keep-2', 'keep-alive')],
    1000,
  );
  expect(kept.closedByServer).toBe(false);
  expect(kept.text.match(/HTTP\/1\.1 200/g)).toHaveLength(2);
  expect(kept.text.match(/TASK_STATE_COMPLETED/g)?.length).toBeGreaterThanOrEqual(2);
}, 30_000);
