import { Observable, of, throwError } from 'rxjs';
import {
  A2aError,
  ANONYMOUS_PRINCIPAL,
  artifact,
  complete,
  working,
  type SkillEvent,
  type Task,
} from '../../../libs/a2a/src/index.js';
import { collectSkillEvents, createSkillContext } from '../../../libs/a2a/src/testing.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('createSkillContext', () => {
  it('is a new task of the anonymous caller, with a user message of `text`', () => {
    const context = createSkillContext({ text: 'hello agent' });
    expect(context.message).toEqual({
      messageId: expect.stringMatching(UUID),
      role: 'ROLE_USER',
      parts: [{ text: 'hello agent' }],
    });
    expect(context.text).toBe('hello agent');
    expect(context.taskId).toMatch(UUID);
    expect(context.contextId).toMatch(UUID);
    expect(context.task).toBeUndefined();
    expect(context.history).toEqual([]);
    expect(context.principal).toBe(ANONYMOUS_PRINCIPAL);
    expect(context.tenant).toBe('');
    expect(context.call).toEqual({
      principal: ANONYMOUS_PRINCIPAL,
      tenant: '',
      binding: 'JSONRPC',
      version: '1.0',
      extensions: [],
    });
    expect(context.extensions).toEqual([]);
    expect(context.attempt).toBe(1);
    expect(context.signal.aborted).toBe(false);
    expect(createSkillContext().taskId).not.toBe(context.taskId);
  });

  it('reads `text` from a message it is given, as the engine does (text parts joined by newlines)', () => {
    const context = createSkillContext({
      message: {
        messageId: 'm-1',
        role: 'ROLE_USER',
        contextId: 'c-9',
        parts: [{ text: 'one' }, { data: { n: 1 } }, { text: 'two' }],
      },
    });
    expect(context.text).toBe('one\ntwo');
    expect(context.contextId).toBe('c-9');
  });

  it("takes a follow-up's ids and history from its task", () => {
    const earlier = { messageId: 'm-0', role: 'ROLE_USER' as const, parts: [{ text: 'Book a flight' }] };
    const task: Task = {
      id: 't-7',
      contextId: 'c-7',
      status: { state: 'TASK_STATE_INPUT_REQUIRED' },
      history: [earlier],
    };
    const context = createSkillContext({ text: 'Paris', task });
    expect([context.taskId, context.contextId, context.history]).toEqual(['t-7', 'c-7', [earlier]]);
  });

  it('keeps the call context in step with the principal and tenant the test chose', () => {
    const alice = { id: 'apiKey:|alice', subject: 'alice', authenticated: true };
    const context = createSkillContext({ principal: alice, tenant: 'acme' });
    expect(context.call).toMatchObject({ principal: alice, tenant: 'acme' });
    const call = { principal: alice, tenant: 't2', binding: 'GRPC', version: '1.0', extensions: ['urn:x'] };
    expect(createSkillContext({ call })).toMatchObject({ principal: alice, tenant: 't2', call });
  });

  it('carries a typed input when the skill has one', () => {
    const context = createSkillContext<{ city: string }>({ text: 'ignored', input: { city: 'Lisbon' } });
    expect(context.input.city).toBe('Lisbon');
    // @ts-expect-error: a skill with a typed input always gets one, so its test context must have one too
    expect(createSkillContext<{ city: string }>({ text: 'Lisbon' }).input).toBeUndefined();
  });

  it('aborts its signal when the test cancels, as CancelTask does', () => {
    const context = createSkillContext();
    const seen: unknown[] = [];
    context.signal.addEventListener('abort', () => seen.push(context.signal.reason));
    context.abortController.abort('canceled by the test');
    expect(context.signal.aborted).toBe(true);
    expect(seen).toEqual(['canceled by the test']);
  });

  describe('waitForAuthorization', () => {
    it('resolves with the credential the test provides, once', async () => {
      const context = createSkillContext();
      expect(context.provideAuthorization('too early')).toBe(false);
      const waiting = context.waitForAuthorization<{ token: string }>();
      expect(context.awaitingAuthorization).toBe(true);
      expect(context.provideAuthorization({ token: 'abc' })).toBe(true);
      await expect(waiting).resolves.toEqual({ token: 'abc' });
      expect(context.awaitingAuthorization).toBe(false);
      expect(context.provideAuthorization({ token: 'again' })).toBe(false);
    });

    it('rejects when the task is canceled meanwhile, as in the engine', async () => {
      const context = createSkillContext();
      const waiting = context.waitForAuthorization();
      context.abortController.abort();
      await expect(waiting).rejects.toBeInstanceOf(A2aError);
      expect(context.awaitingAuthorization).toBe(false);
    });

    it('rejects after timeoutMs', async () => {
      await expect(createSkillContext().waitForAuthorization({ timeoutMs: 5 })).rejects.toThrow(/within 5 ms/);
    });
  });
});

describe('collectSkillEvents', () => {
  const events: SkillEvent[] = [working('on it'), artifact('result', { name: 'out' }), complete()];

  async function* generated(): AsyncGenerator<SkillEvent> {
    yield* events;
  }

  it.each([
    ['an async generator', () => generated()],
    ['an Observable', () => of(...events)],
    ['an array', () => events],
    ['a promise of an array', () => Promise.resolve(events)],
  ])('reads %s to its end', async (_shape, result) => {
    expect(await collectSkillEvents(result())).toEqual(events);
  });

  it('reads a promise of one event, or of nothing', async () => {
    expect(await collectSkillEvents(Promise.resolve(complete('done')))).toEqual([complete('done')]);
    expect(await collectSkillEvents(Promise.resolve())).toEqual([]);
  });

  it("rejects with the skill's error, whether its stream errs or its generator throws", async () => {
    const boom = new Error('boom');
    await expect(collectSkillEvents(throwError(() => boom))).rejects.toBe(boom);
    await expect(
      collectSkillEvents(
        (async function* () {
          yield working();
          throw boom;
        })(),
      ),
    ).rejects.toBe(boom);
  });

  it('ends a skill that stops on cancel', async () => {
    const context = createSkillContext();
    const skill = new Observable<SkillEvent>((subscriber) => {
      subscriber.next(working());
      context.signal.addEventListener('abort', () => subscriber.complete());
    });
    const collected = collectSkillEvents(skill);
    context.abortController.abort();
    expect(await collected).toEqual([working()]);
  });
});
