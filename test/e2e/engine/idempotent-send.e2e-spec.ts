import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  reply,
  requireInput,
  working,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { GrpcJsonClient, type Json } from '../../fixtures/grpc-json.client.js';
import { startGrpcProbeApp, type GrpcProbeApp } from '../../fixtures/grpc-probe.fixture.js';
import { BINDINGS, call, type SecurityTarget } from '../../fixtures/security-calls.js';

/**
 * Idempotent SendMessage (issue 10, item 6): a send retried with the same messageId, by the same caller in the same
 * tenant, gets the first send's task, and the skill runs once; a retried follow-up adds nothing either.
 */
const runs = new Map<string, number>();

@AgentSkill({ id: 'once', name: 'Once', description: 'Counts its runs per message', tags: ['test'] })
class OnceSkill extends A2aSkillHandler {
  async *handle(context: SkillContext): AsyncIterable<SkillEvent> {
    const run = (runs.get(context.message.messageId) ?? 0) + 1;
    runs.set(context.message.messageId, run);
    if (context.text === 'ask') return yield requireInput('Which one?');
    if (context.text === 'hello') {
      // Slow enough for a retry to arrive while it runs; a second run would say so.
      await sleep(100);
      return yield reply(`hello, run ${run}`);
    }
    if (context.text === 'open') {
      // The task stays WORKING after the run: open for follow-ups, with no run to wait for.
      yield working();
      return yield artifact('opened');
    }
    yield working();
    await sleep(150);
    yield artifact(`ran for ${context.text}`);
    yield complete();
  }
}

let probe: GrpcProbeApp;
let target: SecurityTarget;
beforeAll(async () => {
  probe = await startGrpcProbeApp({ providers: [OnceSkill] });
  target = { httpUrl: probe.httpUrl, grpc: new GrpcJsonClient(probe.grpcAddress) };
});
afterAll(async () => {
  target?.grpc.close();
  await probe?.app.close();
});

const message = (messageId: string, text: string, extra: Json = {}): Json => ({
  messageId,
  role: 'ROLE_USER',
  parts: [{ text }],
  metadata: { 'nestjs-a2a/skillId': 'once' },
  ...extra,
});
const taskOf = (result: unknown) => (result as { task: { id: string; status: { state: string } } }).task;

describe.each(BINDINGS)('%s', (binding) => {
  it("answers a retried send with the first one's task; the skill runs once", async () => {
    const id = randomUUID();
    const first = taskOf((await call(target, binding, 'SendMessage', { message: message(id, 'go') })).result);
    const again = taskOf((await call(target, binding, 'SendMessage', { message: message(id, 'go') })).result);
    expect(again.id).toBe(first.id);
    expect(again.status.state).toBe('TASK_STATE_COMPLETED');
    expect(runs.get(id)).toBe(1);
  });

  it('gives concurrent retries one task and one run; the retries wait for it like the first', async () => {
    const id = randomUUID();
    const answers = await Promise.all(
      [1, 2, 3].map(() => call(target, binding, 'SendMessage', { message: message(id, 'go') })),
    );
    expect(new Set(answers.map((answer) => taskOf(answer.result).id)).size).toBe(1);
    expect(answers.map((answer) => taskOf(answer.result).status.state)).toEqual(Array(3).fill('TASK_STATE_COMPLETED'));
    expect(runs.get(id)).toBe(1);
  });

  it('keeps messageIds per tenant: the same id in another tenant is another task', async () => {
    const id = randomUUID();
    const here = taskOf((await call(target, binding, 'SendMessage', { message: message(id, 'go') })).result);
    const there = taskOf(
      (await call(target, binding, 'SendMessage', { message: message(id, 'go') }, {}, 'tenant-b')).result,
    );
    expect(there.id).not.toBe(here.id);
    expect(runs.get(id)).toBe(2);
  });

  it('answers a retried follow-up with the task, without a second run or an error', async () => {
    const asked = taskOf(
      (await call(target, binding, 'SendMessage', { message: message(randomUUID(), 'ask') })).result,
    );
    const answerId = randomUUID();
    const followUp = { message: message(answerId, 'the blue one', { taskId: asked.id }) };
    expect(taskOf((await call(target, binding, 'SendMessage', followUp)).result).status.state).toBe(
      'TASK_STATE_COMPLETED',
    );
    const retried = await call(target, binding, 'SendMessage', followUp);
    expect(retried.status).toBe('OK');
    expect(taskOf(retried.result).id).toBe(asked.id);
    expect(runs.get(answerId)).toBe(1);
  });

  // A messageId reused for another message is not a retry: the first send's task would answer a message it never saw.
  it('refuses a messageId reused for another message with InvalidParams, and leaves the first task alone', async () => {
    const id = randomUUID();
    const first = taskOf((await call(target, binding, 'SendMessage', { message: message(id, 'go') })).result);
    const reused = await call(target, binding, 'SendMessage', { message: message(id, 'something else') });
    expect(reused.status).toBe('INVALID_ARGUMENT');
    if (binding === 'JSONRPC') expect(reused.jsonRpcCode).toBe(-32602);
    if (binding === 'HTTP+JSON') expect(reused.httpStatus).toBe(400);
    if (binding !== 'GRPC') expect(reused.errorBody).toContain(id);
    // Other metadata is another message too.
    const tagged = await call(target, binding, 'SendMessage', {
      message: message(id, 'go', { metadata: { 'nestjs-a2a/skillId': 'once', note: 'x' } }),
    });
    expect(tagged.status).toBe('INVALID_ARGUMENT');
    expect(runs.get(id)).toBe(1);
    const task = (await call(target, binding, 'GetTask', { id: first.id })).result as {
      history: Array<{ parts: Array<{ text: string }> }>;
    };
    expect(task.history.map((entry) => entry.parts[0].text)).toEqual(['go']);
  });

  it('refuses a follow-up messageId reused for another message on the same task', async () => {
    const asked = taskOf(
      (await call(target, binding, 'SendMessage', { message: message(randomUUID(), 'ask') })).result,
    );
    const answerId = randomUUID();
    await call(target, binding, 'SendMessage', { message: message(answerId, 'the blue one', { taskId: asked.id }) });
    const reused = await call(target, binding, 'SendMessage', {
      message: message(answerId, 'the red one', { taskId: asked.id }),
    });
    expect(reused.status).toBe('INVALID_ARGUMENT');
    expect(runs.get(answerId)).toBe(1);
  });

  it('refuses a reused messageId while the first send still runs, and lets its retry wait for it', async () => {
    const id = randomUUID();
    const [first, reused, retried] = await Promise.all([
      call(target, binding, 'SendMessage', { message: message(id, 'go') }),
      sleep(30).then(() => call(target, binding, 'SendMessage', { message: message(id, 'stop') })),
      sleep(30).then(() => call(target, binding, 'SendMessage', { message: message(id, 'go') })),
    ]);
    expect(reused.status).toBe('INVALID_ARGUMENT');
    expect(taskOf(retried.result).id).toBe(taskOf(first.result).id);
    expect(runs.get(id)).toBe(1);
  });
});

it('answers a send retried over another binding with the first task: each binding decodes the same message alike', async () => {
  const id = randomUUID();
  const sent = message(id, 'go', { extensions: [], referenceTaskIds: [] });
  const first = taskOf((await call(target, 'GRPC', 'SendMessage', { message: sent })).result);
  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    const again = await call(target, binding, 'SendMessage', { message: message(id, 'go') });
    expect(again.status).toBe('OK');
    expect(taskOf(again.result).id).toBe(first.id);
  }
  expect(runs.get(id)).toBe(1);
});

/** The same SendStreamingMessage twice over gRPC, the second 30 ms after the first: a retry while the first runs. */
const streamTwice = (id: string, text: string) =>
  Promise.all([
    target.grpc.collect('SendStreamingMessage', { message: message(id, text) }),
    sleep(30).then(() => target.grpc.collect('SendStreamingMessage', { message: message(id, text) })),
  ]);

const replyOf = (result: unknown) =>
  (result as { message: { messageId: string; parts: Array<{ text: string }> } }).message;

describe.each(BINDINGS)('%s: a retried send whose first one was answered by a message', (binding) => {
  it('gets the same message, and the skill does not run again', async () => {
    const id = randomUUID();
    const first = replyOf((await call(target, binding, 'SendMessage', { message: message(id, 'hello') })).result);
    expect(first.parts[0].text).toBe('hello, run 1');
    const again = replyOf((await call(target, binding, 'SendMessage', { message: message(id, 'hello') })).result);
    expect(again).toEqual(first);
    expect(runs.get(id)).toBe(1);
  });

  it('gets it too when it comes while the first one runs', async () => {
    const id = randomUUID();
    const answers = await Promise.all(
      [0, 30].map((delay) =>
        sleep(delay).then(() => call(target, binding, 'SendMessage', { message: message(id, 'hello') })),
      ),
    );
    expect(replyOf(answers[1].result)).toEqual(replyOf(answers[0].result));
    expect(runs.get(id)).toBe(1);
  });
});

describe('a retried SendStreamingMessage whose first one was answered by a message', () => {
  it('is that message, as its one frame, whether the first one still runs or not', async () => {
    const id = randomUUID();
    const [first, during] = await streamTwice(id, 'hello');
    const after = await target.grpc.collect('SendStreamingMessage', { message: message(id, 'hello') });
    expect(first).toHaveLength(1);
    expect(during).toEqual(first);
    expect(after).toEqual(first);
    expect(runs.get(id)).toBe(1);
  });
});

describe('a retried send whose task stays open after its run', () => {
  it.each(BINDINGS)('%s: is answered at once with the task as it stands, blocking or streamed', async (binding) => {
    const id = randomUUID();
    const first = taskOf((await call(target, binding, 'SendMessage', { message: message(id, 'open') })).result);
    expect(first.status.state).toBe('TASK_STATE_WORKING');
    const started = Date.now();
    const again = taskOf((await call(target, binding, 'SendMessage', { message: message(id, 'open') })).result);
    expect(again.id).toBe(first.id);
    expect(Date.now() - started).toBeLessThan(1000);
    if (binding === 'GRPC') {
      const events = await target.grpc.collect('SendStreamingMessage', { message: message(id, 'open') });
      expect(events.map((event) => (event.task as { id: string }).id)).toEqual([first.id]);
    }
    expect(runs.get(id)).toBe(1);
  });
});

describe('streaming', () => {
  it("a retried SendStreamingMessage follows the first one's task to its end", async () => {
    const id = randomUUID();
    const [first, second] = await streamTwice(id, 'go');
    const idOf = (events: Json[]) => (events[0].task as { id: string }).id;
    expect(idOf(second)).toBe(idOf(first));
    const last = (events: Json[]) => JSON.stringify(events.at(-1));
    expect(last(first)).toContain('TASK_STATE_COMPLETED');
    expect(last(second)).toContain('TASK_STATE_COMPLETED');
    expect(runs.get(id)).toBe(1);
  });
});

/**
 * JSON may carry a lone surrogate (`"\uda89"`, RFC 8259 §8.2), which RFC 8785 canonical JSON refuses: the retry is
 * still recognised, and the text reads back as sent. gRPC cannot carry one: protobuf strings are UTF-8, and a lone
 * surrogate's bytes (ill-formed UTF-8) reach the server as U+FFFD, so both sends hold the same valid text.
 */
describe.each(['JSONRPC', 'HTTP+JSON'] as const)('%s: a message whose text holds a lone surrogate', (binding) => {
  const text = 'go \uda89 x';
  const firstTaskIdOf = (outcome: Awaited<ReturnType<typeof call>>) => {
    const data = String((outcome.result as { sse: string }).sse)
      .split('\n')
      .find((line) => line.startsWith('data:'))!;
    const event = JSON.parse(data.slice(5)) as Json;
    return taskOf(binding === 'JSONRPC' ? event.result : event).id;
  };

  it('SendMessage retried: the first task, one run, the text as sent; another text under its id is InvalidParams', async () => {
    const id = randomUUID();
    const first = await call(target, binding, 'SendMessage', { message: message(id, text) });
    expect(first.status).toBe('OK');
    const again = await call(target, binding, 'SendMessage', { message: message(id, text) });
    expect(again.status).toBe('OK');
    expect(taskOf(again.result).id).toBe(taskOf(first.result).id);
    const reused = await call(target, binding, 'SendMessage', { message: message(id, 'go \uda89 y') });
    expect(reused.status).toBe('INVALID_ARGUMENT');
    expect(runs.get(id)).toBe(1);
    const task = (await call(target, binding, 'GetTask', { id: taskOf(first.result).id })).result as {
      history: Array<{ parts: Array<{ text: string }> }>;
    };
    expect(task.history[0].parts[0].text).toBe(text);
    // gRPC reads it too, as UTF-8 can carry it: the lone surrogate as U+FFFD.
    const overGrpc = await call(target, 'GRPC', 'GetTask', { id: taskOf(first.result).id });
    expect(overGrpc.status).toBe('OK');
    expect((overGrpc.result as typeof task).history[0].parts[0].text).toBe('go \ufffd x');
  });

  it('SendStreamingMessage retried: the first task, one run; another text under its id is InvalidParams', async () => {
    const id = randomUUID();
    const first = await call(target, binding, 'SendStreamingMessage', { message: message(id, text) });
    expect(first.status).toBe('OK');
    const again = await call(target, binding, 'SendStreamingMessage', { message: message(id, text) });
    expect(again.status).toBe('OK');
    expect(firstTaskIdOf(again)).toBe(firstTaskIdOf(first));
    const reused = await call(target, binding, 'SendStreamingMessage', { message: message(id, 'go \uda89 y') });
    expect(reused.status).toBe('INVALID_ARGUMENT');
    expect(runs.get(id)).toBe(1);
  });
});
