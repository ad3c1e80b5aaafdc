import 'reflect-metadata';
import type { Message, SkillEvent, Task, TaskState } from '../../../libs/a2a/src/index.js';
import {
  artifactTextsOf,
  collectSkillEvents,
  createSkillContext,
  expectStates,
  statesOf,
  type SkillContextOverrides,
} from '../../../libs/a2a/src/testing.js';
import { ConformanceSkill } from './conformance.skill.js';

/** The skill on its own, without the engine: which events each message of CONFORMANCE-AGENT.md produces. */
describe('ConformanceSkill', () => {
  const skill = new ConformanceSkill({ baseUrl: 'http://localhost', subscribeHoldMs: 10 });

  it('echo: WORKING, one artifact with the text, COMPLETED', async () => {
    expect(await run('echo hello  world')).toEqual([
      { kind: 'status', state: 'TASK_STATE_WORKING' },
      expect.objectContaining({
        kind: 'artifact',
        artifact: expect.objectContaining({ parts: [{ text: 'hello  world' }] }),
      }),
      { kind: 'status', state: 'TASK_STATE_COMPLETED' },
    ]);
  });

  it('message: one direct reply', async () => {
    expect(await run('message hi there')).toEqual([{ kind: 'reply', message: 'hi there' }]);
  });

  it('stream <n>: chunks of one artifact, append after the first, lastChunk on the last', async () => {
    const events = await run('stream 3');
    const chunks = events.filter((e) => e.kind === 'artifact');
    expect(chunks.map((c) => [c.artifact.parts, c.append ?? false, c.lastChunk ?? false])).toEqual([
      [[{ text: 'chunk 1' }], false, false],
      [[{ text: 'chunk 2' }], true, false],
      [[{ text: 'chunk 3' }], true, true],
    ]);
    expect(new Set(chunks.map((c) => c.artifact.artifactId)).size).toBe(1);
    expectStates(events, ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
  });

  it('stream without a usable count: the default three chunks; commands are case-insensitive', async () => {
    expect(artifactTextsOf(await run('STREAM lots'))).toEqual(['chunk 1', 'chunk 2', 'chunk 3']);
  });

  it('slow <ms>: WORKING, then COMPLETED once the time is up', async () => {
    expectStates(await run('slow 1'), ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
  });

  it('slow <ms>: stops without completing once the task is canceled', async () => {
    const context = createSkillContext({ text: 'slow 60000' });
    const iterator = skill.handle(context)[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({ kind: 'status', state: 'TASK_STATE_WORKING' });
    const next = iterator.next();
    context.abortController.abort();
    expect(await next).toEqual({ done: true, value: undefined });
  });

  it.each([
    ['ask', 'TASK_STATE_INPUT_REQUIRED'],
    ['auth', 'TASK_STATE_AUTH_REQUIRED'],
    ['fail', 'TASK_STATE_FAILED'],
    ['reject', 'TASK_STATE_REJECTED'],
  ])('%s: ends in %s with a status message', async (text, state) => {
    const events = await run(text);
    const last = events.at(-1);
    expect(last).toMatchObject({ kind: 'status', state });
    expect(last?.kind === 'status' && typeof last.message).toBe('string');
  });

  it('data: one artifact with a data, a raw and a url part', async () => {
    const artifact = (await run('data')).find((e) => e.kind === 'artifact');
    expect(artifact?.kind === 'artifact' && artifact.artifact.parts).toEqual([
      { data: { ok: true, n: 42 }, mediaType: 'application/json' },
      { raw: 'aGVsbG8=', mediaType: 'text/plain', filename: 'hello.txt' },
      { url: 'https://example.com/a.pdf', mediaType: 'application/pdf' },
    ]);
  });

  it('anything else: WORKING with a "response" artifact, and no terminal state', async () => {
    const events = await run('Hello, agent');
    expect(statesOf(events)).toEqual(['TASK_STATE_WORKING']);
    expect(events[1]).toMatchObject({
      kind: 'artifact',
      artifact: { name: 'response', parts: [{ text: 'You said: Hello, agent' }] },
    });
  });

  it('a test-subscribe-message-id message holds the task WORKING, then completes it', async () => {
    const events = await run('echo ignored', {
      message: { ...userMessage('echo ignored'), messageId: 'test-subscribe-message-id-1' },
    });
    expect(events).toEqual([
      { kind: 'status', state: 'TASK_STATE_WORKING' },
      { kind: 'status', state: 'TASK_STATE_COMPLETED' },
    ]);
  });

  describe('follow-ups', () => {
    it('answer an INPUT_REQUIRED task with "answer: <text>" and complete it', async () => {
      const events = await run('Paris', { task: task('TASK_STATE_INPUT_REQUIRED') });
      expect(events.find((e) => e.kind === 'artifact')).toMatchObject({
        artifact: { parts: [{ text: 'answer: Paris' }] },
      });
      expect(statesOf(events).at(-1)).toBe('TASK_STATE_COMPLETED');
    });

    it('complete an AUTH_REQUIRED task', async () => {
      expect(statesOf(await run('token', { task: task('TASK_STATE_AUTH_REQUIRED') })).at(-1)).toBe(
        'TASK_STATE_COMPLETED',
      );
    });

    it('add one artifact to an open task and leave it WORKING', async () => {
      const events = await run('more', { task: task('TASK_STATE_WORKING') });
      expect(events).toEqual([
        expect.objectContaining({
          kind: 'artifact',
          artifact: expect.objectContaining({ name: 'response', parts: [{ text: 'You said: more' }] }),
        }),
      ]);
    });
  });

  function run(text: string, overrides: SkillContextOverrides = {}): Promise<SkillEvent[]> {
    return collectSkillEvents(skill.handle(createSkillContext({ text, ...overrides })));
  }
});

function userMessage(text: string): Message {
  return { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text }] };
}

function task(state: TaskState): Task {
  return { id: 't-1', contextId: 'c-1', status: { state } };
}
