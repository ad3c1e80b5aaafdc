import { Module } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  working,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { startTestApp } from '../../fixtures/test-app.js';

/**
 * Resumable streams (issue 10, item 5): every SSE frame carries `id:` (the task version it brings the reader to), and
 * SubscribeToTask with `Last-Event-ID` sends exactly the frames after it, on both HTTP bindings; so does a
 * SendStreamingMessage sent again (the same message, a retry) with it.
 */
@AgentSkill({
  id: 'count',
  name: 'Count',
  description: 'count <n> <ms>: n chunks, one every ms',
  tags: ['test'],
  default: true,
})
class CountSkill extends A2aSkillHandler {
  async *handle(context: SkillContext): AsyncIterable<SkillEvent> {
    const [, n, ms] = context.text.split(' ').map(Number);
    yield working();
    for (let i = 1; i <= n; i++) {
      await sleep(ms, undefined, { signal: context.signal }).catch(() => undefined);
      yield artifact(`chunk ${i}`, { artifactId: 'count', append: i > 1, lastChunk: i === n });
    }
    yield complete();
  }
}

@Module({
  imports: [
    A2aModule.forRoot({ card: { name: 'Resumable', description: 'Counts' }, security: { allowAnonymous: true } }),
  ],
  providers: [CountSkill],
})
class ResumeModule {}

let url: string;
let close: () => Promise<void>;
beforeAll(async () => {
  const started = await startTestApp(ResumeModule);
  url = started.url;
  close = () => started.app.close();
});
afterAll(() => close?.());

interface Frame {
  id?: number;
  data: Record<string, any>;
}

function framesOf(text: string): Frame[] {
  return text
    .split('\n\n')
    .filter((block) => block.includes('data: '))
    .map((block) => {
      const id = /^id: (\d+)$/m.exec(block)?.[1];
      const data = JSON.parse(/^data: (.*)$/m.exec(block)![1]) as Record<string, any>;
      return { ...(id ? { id: Number(id) } : {}), data: data.result ?? data };
    });
}

const HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

async function startTask(text: string): Promise<string> {
  const res = await fetch(`${url}/a2a/rest/message:send`, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] },
      configuration: { returnImmediately: true },
    }),
  });
  return ((await res.json()) as { task: { id: string } }).task.id;
}

function subscribe(
  binding: 'JSONRPC' | 'HTTP+JSON',
  taskId: string,
  lastEventId?: string,
  signal?: AbortSignal,
): Promise<Response> {
  const headers = { ...HEADERS, ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) };
  return binding === 'JSONRPC'
    ? fetch(`${url}/a2a/jsonrpc`, {
        method: 'POST',
        headers,
        signal,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: taskId } }),
      })
    : fetch(`${url}/a2a/rest/tasks/${taskId}:subscribe`, { headers, signal });
}

/** Reads a stream until it holds `count` frames, then drops the connection. */
async function readSome(response: Response, count: number, abort: AbortController): Promise<Frame[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (framesOf(text).length < count) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += chunk.value;
  }
  abort.abort();
  return framesOf(text).slice(0, count);
}

/** `rest`, read after reconnecting with the id of `first`'s last frame, goes on from it: no task again, no gap, no repeat, to the end of `count 12`. */
function expectTheRest(first: Frame[], rest: Frame[]): void {
  expect(rest[0].data.task).toBeUndefined();
  const ids = [...first, ...rest].map((frame) => frame.id!);
  expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => ids[0] + i));
  const chunks = [...first, ...rest].flatMap(
    (frame) => frame.data.artifactUpdate?.artifact.parts.map((part: { text: string }) => part.text) ?? [],
  );
  expect(chunks).toEqual(Array.from({ length: 12 }, (_, i) => `chunk ${i + 1}`));
  expect(rest.at(-1)!.data.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
}

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('%s', (binding) => {
  it('numbers every frame; a reconnect with Last-Event-ID gets exactly the rest, without the task again', async () => {
    const taskId = await startTask('count 12 40');
    const abort = new AbortController();
    const first = await readSome(await subscribe(binding, taskId, undefined, abort.signal), 4, abort);
    expect(first[0].data.task.id).toBe(taskId);
    const ids = first.map((frame) => frame.id!);
    expect(ids.every((id, i) => i === 0 || id === ids[i - 1] + 1)).toBe(true);
    await sleep(150); // events pass while disconnected
    expectTheRest(first, framesOf(await (await subscribe(binding, taskId, String(ids.at(-1)))).text()));
  });

  it('after the end: the id of the last frame gets an empty stream; an older one gets the final task', async () => {
    const message = { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: 'count 2 1' }] };
    const sent =
      binding === 'JSONRPC'
        ? await fetch(`${url}/a2a/jsonrpc`, {
            method: 'POST',
            headers: HEADERS,
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message } }),
          })
        : await fetch(`${url}/a2a/rest/message:stream`, {
            method: 'POST',
            headers: HEADERS,
            body: JSON.stringify({ message }),
          });
    // SendStreamingMessage's frames are numbered the same way.
    const frames = framesOf(await sent.text());
    const taskId = frames[0].data.task.id as string;
    const lastId = frames.at(-1)!.id!;
    await sleep(50);
    expect(framesOf(await (await subscribe(binding, taskId, String(lastId))).text())).toEqual([]);
    const older = framesOf(await (await subscribe(binding, taskId, String(lastId - 1))).text());
    expect(older.map((frame) => frame.data.task?.status.state ?? frame.data.statusUpdate?.status.state)).toEqual([
      'TASK_STATE_COMPLETED',
    ]);
  });

  it('refuses a Last-Event-ID that is not an event id (InvalidParams)', async () => {
    const taskId = await startTask('count 1 1');
    const response = await subscribe(binding, taskId, 'yesterday');
    const body = (await response.json()) as { error: { code: number; status?: string } };
    if (binding === 'JSONRPC') expect(body.error.code).toBe(-32602);
    else expect(response.status).toBe(400);
  });
});

/** SendStreamingMessage of `message`, with a Last-Event-ID when given: the same send, retried. */
function sendStream(
  binding: 'JSONRPC' | 'HTTP+JSON',
  message: Record<string, unknown>,
  lastEventId?: string,
  signal?: AbortSignal,
): Promise<Response> {
  const headers = { ...HEADERS, ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) };
  return binding === 'JSONRPC'
    ? fetch(`${url}/a2a/jsonrpc`, {
        method: 'POST',
        headers,
        signal,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params: { message } }),
      })
    : fetch(`${url}/a2a/rest/message:stream`, { method: 'POST', headers, signal, body: JSON.stringify({ message }) });
}

describe.each(['JSONRPC', 'HTTP+JSON'] as const)(
  '%s, a SendStreamingMessage sent again with Last-Event-ID',
  (binding) => {
    it('gets exactly the frames after it, while the first send still runs', async () => {
      const message = { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: 'count 12 40' }] };
      const abort = new AbortController();
      const first = await readSome(await sendStream(binding, message, undefined, abort.signal), 4, abort);
      await sleep(150); // events pass while disconnected
      expectTheRest(first, framesOf(await (await sendStream(binding, message, String(first.at(-1)!.id))).text()));
    });

    it('refuses a Last-Event-ID that is not an event id (InvalidParams), as SubscribeToTask does', async () => {
      const message = { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: 'count 1 1' }] };
      await (await sendStream(binding, message)).text();
      const response = await sendStream(binding, message, 'yesterday');
      const body = (await response.json()) as { error: { code: number } };
      if (binding === 'JSONRPC') expect(body.error.code).toBe(-32602);
      else expect(response.status).toBe(400);
    });

    // As SubscribeToTask: the in-memory store drops a task's changes once it is terminal, so an older id gets the task.
    it('after the end: the id of the last frame gets an empty stream; an older one gets the final task', async () => {
      const message = { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: 'count 2 1' }] };
      const frames = framesOf(await (await sendStream(binding, message)).text());
      const lastId = frames.at(-1)!.id!;
      expect(framesOf(await (await sendStream(binding, message, String(lastId))).text())).toEqual([]);
      const older = framesOf(await (await sendStream(binding, message, String(lastId - 1))).text());
      expect(older.map((frame) => [frame.id, frame.data.task?.status.state])).toEqual([
        [lastId, 'TASK_STATE_COMPLETED'],
      ]);
    });
  },
);
