import 'reflect-metadata';
import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import type { Observable, Subscription } from 'rxjs';
import {
  A2aError,
  A2aMessages,
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  ANONYMOUS_PRINCIPAL,
  artifact,
  complete,
  reply,
  requireInput,
  SKILL_ID_METADATA_KEY,
  working,
  type A2aCallContext,
  type JsonObject,
  type Message,
  type SendMessageRequest,
  type SkillContext,
  type SkillEvent,
  type SkillRouter,
  type StreamResponse,
  type Task,
} from '../../../libs/a2a/src/index.js';
import { A2A_EVENT_BUS, InProcessEventBus } from '../../../libs/a2a/src/store.js';
import { A2aEngine } from '../../../libs/a2a/src/engine/a2a.engine.js';
import type { AgentSkill as AgentSkillCard } from '../../../libs/a2a/src/protocol/a2a.types.js';
import { SkillRegistry } from '../../../libs/a2a/src/skills/skill.registry.js';
import { createTestApplication } from '../../fixtures/test-app.js';

const call: A2aCallContext = {
  principal: ANONYMOUS_PRINCIPAL,
  tenant: '',
  binding: 'JSONRPC',
  version: '1.0',
  extensions: [],
};

const WAIT_MS = 5000;

/** Named one-shot latches the test opens to move a skill forward, so no assertion depends on timing. */
class Gates {
  private readonly latches = new Map<string, { promise: Promise<void>; open: () => void }>();

  wait(name: string): Promise<void> {
    return this.latch(name).promise;
  }

  open(...names: string[]): void {
    for (const name of names) this.latch(name).open();
  }

  private latch(name: string) {
    let latch = this.latches.get(name);
    if (!latch) {
      let open!: () => void;
      const promise = new Promise<void>((resolve) => (open = resolve));
      latch = { promise, open };
      this.latches.set(name, latch);
    }
    return latch;
  }
}

const gates = new Gates();

/** What the skills saw, for assertions on the skill side of the engine. */
const probe = {
  /** Task id by message text, as soon as the skill starts on it. */
  started: new Map<string, string>(),
  aborted: new Set<string>(),
  followUps: new Map<string, { history: readonly Message[]; task?: Readonly<Task> }>(),
};

const text = (message: Message | undefined) => message?.parts.map((p) => p.text ?? '').join('') ?? '';

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) =>
    signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}

/** The default skill: its behaviour is keyed on the first word of the message that opened the task. */
@AgentSkill({
  id: 'scripted',
  name: 'Scripted',
  description: 'Does what the message says',
  tags: ['test'],
  default: true,
})
class ScriptedSkill extends A2aSkillHandler {
  handle(context: SkillContext) {
    const opening = context.task ? text(context.task.history?.[0]) : context.text;
    const [verb, arg = ''] = opening.split(' ');
    switch (verb) {
      case 'gated':
        return this.gated(arg);
      case 'until-canceled':
        return this.untilCanceled(context);
      case 'ask':
        return this.ask(context);
      case 'throw':
        return this.throwMidway();
      case 'throw-sync':
        throw new Error('sync failure at /srv/secret/config.ts:12');
      case 'reply':
        return [reply('just a message')];
      case 'nothing':
        return [];
      default:
        return [complete('handled by scripted')];
    }
  }

  private async *gated(key: string): AsyncGenerator<SkillEvent> {
    yield working('started');
    await gates.wait(`${key}:1`);
    yield artifact('part 1', { artifactId: 'doc' });
    await gates.wait(`${key}:2`);
    yield artifact(' part 2', { artifactId: 'doc', append: true, lastChunk: true });
    yield working('almost');
    await gates.wait(`${key}:3`);
    yield complete('done');
  }

  private async *untilCanceled(context: SkillContext): AsyncGenerator<SkillEvent> {
    probe.started.set(context.text, context.taskId);
    yield working('waiting to be canceled');
    await untilAborted(context.signal);
    probe.aborted.add(context.taskId);
    yield artifact('too late');
    yield complete('should never be written');
  }

  private async *ask(context: SkillContext): AsyncGenerator<SkillEvent> {
    if (!context.task) {
      yield requireInput('Which date?');
      return;
    }
    probe.followUps.set(context.taskId, { history: context.history, task: context.task });
    yield working();
    if (context.text === 'not sure') {
      yield requireInput('Please give a date.');
      return;
    }
    yield complete(`Booked for ${context.text}`);
  }

  private async *throwMidway(): AsyncGenerator<SkillEvent> {
    yield working('about to fail');
    throw new Error('database password hunter2 rejected at /srv/secret/db.ts:42');
  }
}

@AgentSkill({ id: 'other', name: 'Other', description: 'Another skill', tags: ['test'] })
class OtherSkill extends A2aSkillHandler {
  handle() {
    return [complete('handled by other')];
  }
}

@AgentSkill({ id: 'routed', name: 'Routed', description: 'Chosen by the router', tags: ['test'] })
class RoutedSkill extends A2aSkillHandler {
  handle() {
    return [complete('handled by routed')];
  }
}

@Injectable()
class TestRouter implements SkillRouter {
  route(message: Message, skills: readonly AgentSkillCard[]): string | undefined {
    const words = text(message);
    if (words.startsWith('route-me')) return skills.find((s) => s.id === 'routed')?.id;
    if (words.startsWith('route-nowhere')) return 'ghost';
    return undefined;
  }
}

@Module({
  imports: [
    A2aModule.forRoot({
      card: { name: 'Engine test agent', description: 'Scripted skills' },
      router: TestRouter,
      security: { anonymousCallers: 'shared' },
    }),
  ],
  providers: [ScriptedSkill, OtherSkill, RoutedSkill],
})
class EngineTestModule {}

function userMessage(words: string, extra: Partial<Message> = {}): Message {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: words }], ...extra };
}

function send(
  words: string,
  extra: Partial<Message> = {},
  request: Partial<SendMessageRequest> = {},
): SendMessageRequest {
  return { message: userMessage(words, extra), ...request };
}

/** Subscribes to a stream and records it, with bounded waits on what it has seen. */
class Recorder {
  readonly events: StreamResponse[] = [];
  error?: unknown;
  completed = false;
  private readonly subscription: Subscription;
  private readonly waiters = new Set<() => void>();

  constructor(stream: Observable<StreamResponse>) {
    this.subscription = stream.subscribe({
      next: (event) => {
        this.events.push(event);
        this.notify();
      },
      error: (error: unknown) => {
        this.error = error;
        this.notify();
      },
      complete: () => {
        this.completed = true;
        this.notify();
      },
    });
  }

  get ended(): boolean {
    return this.completed || this.error !== undefined;
  }

  /** The events after the first (the task snapshot). */
  get tail(): StreamResponse[] {
    return this.events.slice(1);
  }

  get taskId(): string {
    const first = this.events[0];
    if (!first || !('task' in first)) throw new Error(`stream did not start with a task: ${JSON.stringify(first)}`);
    return first.task.id;
  }

  until(condition: (r: Recorder) => boolean, what: string): Promise<void> {
    if (condition(this)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(`timed out waiting for ${what}; saw ${JSON.stringify(this.events)} error=${String(this.error)}`),
        );
      }, WAIT_MS);
      const check = () => {
        if (!condition(this)) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }

  count(n: number): Promise<void> {
    return this.until((r) => r.events.length >= n, `${n} events`);
  }

  done(): Promise<void> {
    return this.until((r) => r.ended, 'the end of the stream');
  }

  unsubscribe(): void {
    this.subscription.unsubscribe();
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

/** A compact, comparable form of a stream event (timestamps and generated ids left out). */
function shape(event: StreamResponse): string {
  if ('task' in event) return `task:${event.task.status.state}`;
  if ('message' in event) return `message:${text(event.message)}`;
  if ('statusUpdate' in event)
    return `status:${event.statusUpdate.status.state}:${text(event.statusUpdate.status.message)}`;
  const parts = event.artifactUpdate.artifact.parts.map((p) => p.text).join('');
  return `artifact:${event.artifactUpdate.artifact.artifactId}:${parts}${event.artifactUpdate.append ? ':append' : ''}`;
}

async function rejection(promise: Promise<unknown>): Promise<A2aError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof A2aError) return error;
    throw error;
  }
  throw new Error('expected an A2aError, but the call succeeded');
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('A2aEngine streams and lifecycle', () => {
  let app: INestApplication;
  let engine: A2aEngine;
  let bus: InProcessEventBus;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [EngineTestModule] }).compile();
    app = createTestApplication(moduleRef);
    await app.init();
    engine = app.get(A2aEngine);
    bus = app.get(A2A_EVENT_BUS);
  });
  afterAll(() => app.close());

  async function sendStreaming(words: string): Promise<Recorder> {
    const sender = new Recorder(engine.sendStreamingMessage(send(words), call));
    await sender.count(1);
    return sender;
  }

  async function subscribe(taskId: string): Promise<Recorder> {
    const subscriber = new Recorder(engine.subscribeToTask({ id: taskId }, call));
    await subscriber.count(1);
    return subscriber;
  }

  /** Polls GetTask (bounded) until the task exists and is in `state`. */
  async function waitForState(taskId: string, state: string): Promise<Task> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const task = await engine.getTask({ id: taskId }, call).catch(() => undefined);
      if (task?.status.state === state) return task;
      if (Date.now() > deadline)
        throw new Error(`task ${taskId} is ${task?.status.state ?? 'missing'}, expected ${state}`);
      await settle();
    }
  }

  describe('several streams of one task (spec §3.5.2)', () => {
    it('gives the streaming sender and two subscribers the same events in the same order', async () => {
      const sender = await sendStreaming('gated r49');
      const taskId = sender.taskId;
      const first = await subscribe(taskId);
      const second = await subscribe(taskId);
      for (const s of [sender, first, second]) expect(shape(s.events[0])).toBe('task:TASK_STATE_WORKING');

      gates.open('r49:1', 'r49:2', 'r49:3');
      await Promise.all([sender.done(), first.done(), second.done()]);

      const expected = [
        'artifact:doc:part 1',
        'artifact:doc: part 2:append',
        'status:TASK_STATE_WORKING:almost',
        'status:TASK_STATE_COMPLETED:done',
      ];
      expect(sender.tail.map(shape)).toEqual(expected);
      expect(first.tail).toEqual(sender.tail);
      expect(second.tail).toEqual(sender.tail);
      for (const s of [sender, first, second]) expect(s.completed).toBe(true);
      expect(bus.watchedTaskCount).toBe(0);
    });

    it('keeps the other streams and the task going when one subscriber leaves', async () => {
      const sender = await sendStreaming('gated leave');
      const taskId = sender.taskId;
      const leaving = await subscribe(taskId);
      const staying = await subscribe(taskId);

      gates.open('leave:1');
      await Promise.all([sender.count(2), leaving.count(2), staying.count(2)]);
      leaving.unsubscribe();
      gates.open('leave:2', 'leave:3');
      await Promise.all([sender.done(), staying.done()]);

      expect(leaving.tail.map(shape)).toEqual(['artifact:doc:part 1']);
      expect(staying.tail).toEqual(sender.tail);
      expect(staying.tail.map(shape)).toHaveLength(4);
      const task = await engine.getTask({ id: taskId }, call);
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(task.artifacts?.[0].parts.map((p) => p.text).join('')).toBe('part 1 part 2');
      expect(probe.aborted.has(taskId)).toBe(false);
      expect(bus.watchedTaskCount).toBe(0);
    });

    it('does not stop the task when the streaming sender disconnects', async () => {
      const sender = await sendStreaming('gated disconnect');
      const taskId = sender.taskId;
      const watcher = await subscribe(taskId);
      sender.unsubscribe();
      gates.open('disconnect:1', 'disconnect:2', 'disconnect:3');
      await watcher.done();
      expect(watcher.tail.map(shape).at(-1)).toBe('status:TASK_STATE_COMPLETED:done');
      expect((await engine.getTask({ id: taskId }, call)).status.state).toBe('TASK_STATE_COMPLETED');
      expect(bus.watchedTaskCount).toBe(0);
    });

    it('starts a late subscriber from the current task, then only newer events', async () => {
      const sender = await sendStreaming('gated late');
      gates.open('late:1');
      await sender.count(2);
      const late = await subscribe(sender.taskId);
      const snapshot = late.events[0] as { task: Task };
      expect(snapshot.task.artifacts?.[0].parts).toEqual([{ text: 'part 1' }]);
      gates.open('late:2', 'late:3');
      await Promise.all([sender.done(), late.done()]);
      expect(late.tail).toEqual(sender.tail.slice(1));
      expect(bus.watchedTaskCount).toBe(0);
    });

    it('refuses SubscribeToTask on a terminal or unknown task before any event (spec §3.1.6)', async () => {
      const { task } = (await engine.sendMessage(send('finish'), call)) as { task: Task };
      const terminal = new Recorder(engine.subscribeToTask({ id: task.id }, call));
      await terminal.done();
      expect(terminal.events).toEqual([]);
      expect((terminal.error as A2aError).kind).toBe('UnsupportedOperation');

      const unknown = new Recorder(engine.subscribeToTask({ id: 'no-such-task' }, call));
      await unknown.done();
      expect((unknown.error as A2aError).kind).toBe('TaskNotFound');
      expect(bus.watchedTaskCount).toBe(0);
    });
  });

  describe('cancel (spec §3.1.5, §3.3.1)', () => {
    it('signals the skill, writes nothing it emits afterwards, and ends the task CANCELED', async () => {
      const sender = await sendStreaming('until-canceled');
      const taskId = sender.taskId;

      const canceled = await engine.cancelTask({ id: taskId, metadata: { reason: 'user' } }, call);
      expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
      await sender.done();
      expect(sender.tail.map(shape)).toEqual(['status:TASK_STATE_CANCELED:']);
      expect(sender.tail[0]).toMatchObject({ statusUpdate: { metadata: { reason: 'user' } } });

      // The skill goes on after its signal fired and yields again; give that every chance to get written.
      await waitUntil(() => probe.aborted.has(taskId));
      for (let i = 0; i < 5; i++) await settle();
      const task = await engine.getTask({ id: taskId }, call);
      expect(task.status.state).toBe('TASK_STATE_CANCELED');
      expect(task.artifacts).toBeUndefined();
      expect(task.history?.map(text)).toEqual(['until-canceled', 'waiting to be canceled']);
      expect(bus.watchedTaskCount).toBe(0);
    });

    it('answers a blocking sender with the CANCELED task', async () => {
      const pending = engine.sendMessage(send('until-canceled blocking'), call);
      await waitUntil(() => probe.started.has('until-canceled blocking'));
      const taskId = probe.started.get('until-canceled blocking')!;
      await waitForState(taskId, 'TASK_STATE_WORKING');
      await engine.cancelTask({ id: taskId }, call);
      const result = await pending;
      expect('task' in result && result.task.status.state).toBe('TASK_STATE_CANCELED');
    });

    it('is idempotent on a CANCELED task', async () => {
      const sender = await sendStreaming('until-canceled');
      const first = await engine.cancelTask({ id: sender.taskId }, call);
      const again = await engine.cancelTask({ id: sender.taskId }, call);
      expect(again.status.state).toBe('TASK_STATE_CANCELED');
      expect(again.status.timestamp).toBe(first.status.timestamp);
      await sender.done();
    });

    it('refuses a COMPLETED task with TaskNotCancelable and an unknown one with TaskNotFound', async () => {
      const { task } = (await engine.sendMessage(send('finish'), call)) as { task: Task };
      expect((await rejection(engine.cancelTask({ id: task.id }, call))).kind).toBe('TaskNotCancelable');
      expect((await engine.getTask({ id: task.id }, call)).status.state).toBe('TASK_STATE_COMPLETED');
      expect((await rejection(engine.cancelTask({ id: 'no-such-task' }, call))).kind).toBe('TaskNotFound');
    });

    it('cancels a task that waits for input', async () => {
      const { task } = (await engine.sendMessage(send('ask'), call)) as { task: Task };
      expect((await engine.cancelTask({ id: task.id }, call)).status.state).toBe('TASK_STATE_CANCELED');
    });
  });

  describe('failures', () => {
    it.each([
      ['throws midway', 'throw'],
      ['throws synchronously', 'throw-sync'],
    ])('ends the task FAILED with a generic message when the skill %s', async (_label, words) => {
      const result = await engine.sendMessage(send(words), call);
      if (!('task' in result)) throw new Error('expected a task');
      expect(result.task.status.state).toBe('TASK_STATE_FAILED');
      expect(result.task.status.message).toMatchObject({
        role: 'ROLE_AGENT',
        parts: [{ text: 'The agent failed while processing the message.' }],
      });
      const stored = JSON.stringify(await engine.getTask({ id: result.task.id }, call));
      expect(stored).not.toMatch(/hunter2|\/srv\/secret|\bat .+:\d+/);
      expect(JSON.parse(stored).history[0]).toMatchObject({ role: 'ROLE_USER', parts: [{ text: words }] });
    });

    it('answers InvalidAgentResponse when the skill emits nothing', async () => {
      expect((await rejection(engine.sendMessage(send('nothing'), call))).kind).toBe('InvalidAgentResponse');
      const stream = new Recorder(engine.sendStreamingMessage(send('nothing'), call));
      await stream.done();
      expect(stream.events).toEqual([]);
      expect((stream.error as A2aError).kind).toBe('InvalidAgentResponse');
      expect(bus.watchedTaskCount).toBe(0);
    });
  });

  describe('multi-turn (spec §3.4)', () => {
    it('stops a blocking send at INPUT_REQUIRED and continues the same task on the follow-up, merging history', async () => {
      const asked = await engine.sendMessage(send('ask'), call);
      if (!('task' in asked)) throw new Error('expected a task');
      expect(asked.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(text(asked.task.status.message)).toBe('Which date?');
      const { id, contextId } = asked.task;

      const answered = await engine.sendMessage(send('2026-12-24', { taskId: id }), call);
      if (!('task' in answered)) throw new Error('expected a task');
      expect(answered.task).toMatchObject({ id, contextId, status: { state: 'TASK_STATE_COMPLETED' } });
      expect(answered.task.history?.map((m) => [m.role, text(m)])).toEqual([
        ['ROLE_USER', 'ask'],
        ['ROLE_AGENT', 'Which date?'],
        ['ROLE_USER', '2026-12-24'],
        ['ROLE_AGENT', 'Booked for 2026-12-24'],
      ]);
      for (const m of answered.task.history!) expect(m).toMatchObject({ contextId, taskId: id });
    });

    it('shows the skill the task and history as they were before the follow-up', async () => {
      const { task } = (await engine.sendMessage(send('ask'), call)) as { task: Task };
      await engine.sendMessage(send('tomorrow', { taskId: task.id }), call);
      const seen = probe.followUps.get(task.id)!;
      expect(seen.history.map(text)).toEqual(['ask', 'Which date?']);
      expect(seen.task?.history?.map(text)).toEqual(['ask', 'Which date?']);
      expect(seen.task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    });

    it('streams a follow-up past the INPUT_REQUIRED it answers, to the next stop', async () => {
      const { task } = (await engine.sendMessage(send('ask'), call)) as { task: Task };
      const followUp = new Recorder(engine.sendStreamingMessage(send('2027-01-01', { taskId: task.id }), call));
      await followUp.done();
      expect(followUp.error).toBeUndefined();
      expect(followUp.events.map(shape)).toEqual([
        'task:TASK_STATE_INPUT_REQUIRED',
        'status:TASK_STATE_WORKING:',
        'status:TASK_STATE_COMPLETED:Booked for 2027-01-01',
      ]);
      const snapshot = (followUp.events[0] as { task: Task }).task;
      expect(snapshot.history?.map(text)).toEqual(['ask', 'Which date?', '2027-01-01']);

      const again = await engine.sendMessage(send('ask'), call);
      const asking = new Recorder(
        engine.sendStreamingMessage(send('not sure', { taskId: (again as { task: Task }).task.id }), call),
      );
      await asking.done();
      expect(asking.events.map(shape)).toEqual([
        'task:TASK_STATE_INPUT_REQUIRED',
        'status:TASK_STATE_WORKING:',
        'status:TASK_STATE_INPUT_REQUIRED:Please give a date.',
      ]);
      expect(bus.watchedTaskCount).toBe(0);
    });

    it('rejects a contextId that differs from the task’s with InvalidParams (spec §3.4.3)', async () => {
      const { task } = (await engine.sendMessage(send('ask'), call)) as { task: Task };
      const error = await rejection(
        engine.sendMessage(send('2026-12-24', { taskId: task.id, contextId: 'some-other-context' }), call),
      );
      expect(error.kind).toBe('InvalidParams');
      expect(error.fieldViolations.map((v) => v.field)).toEqual(['message.contextId']);

      const stream = new Recorder(
        engine.sendStreamingMessage(send('x', { taskId: task.id, contextId: 'some-other-context' }), call),
      );
      await stream.done();
      expect(stream.events).toEqual([]);
      expect((stream.error as A2aError).kind).toBe('InvalidParams');
      // The refused follow-up left the task waiting.
      expect((await engine.getTask({ id: task.id }, call)).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    });

    it('accepts a follow-up that repeats the task’s own contextId', async () => {
      const { task } = (await engine.sendMessage(send('ask'), call)) as { task: Task };
      const result = await engine.sendMessage(send('soon', { taskId: task.id, contextId: task.contextId }), call);
      expect('task' in result && result.task.status.state).toBe('TASK_STATE_COMPLETED');
    });

    it('refuses a follow-up to a terminal task with UnsupportedOperation (spec §3.1.1)', async () => {
      const { task } = (await engine.sendMessage(send('finish'), call)) as { task: Task };
      expect((await rejection(engine.sendMessage(send('more', { taskId: task.id }), call))).kind).toBe(
        'UnsupportedOperation',
      );
    });

    it('refuses a message for an unknown task with TaskNotFound (spec §3.4.2)', async () => {
      expect((await rejection(engine.sendMessage(send('hello', { taskId: 'no-such-task' }), call))).kind).toBe(
        'TaskNotFound',
      );
    });

    it('starts a new task in an existing context for a new message with that contextId', async () => {
      const { task: first } = (await engine.sendMessage(send('finish'), call)) as { task: Task };
      const { task: second } = (await engine.sendMessage(
        send('finish again', { contextId: first.contextId }),
        call,
      )) as { task: Task };
      expect(second.id).not.toBe(first.id);
      expect(second.contextId).toBe(first.contextId);
      const listed = await engine.listTasks({ contextId: first.contextId }, call);
      expect(listed.tasks.map((t) => t.id).sort()).toEqual([first.id, second.id].sort());
    });

    it('mints a contextId when the message has none and returns it (spec §3.4.1)', async () => {
      const { task } = (await engine.sendMessage(send('finish'), call)) as { task: Task };
      expect(task.contextId).toMatch(/^[0-9a-f-]{36}$/);
      expect(task.history?.[0].contextId).toBe(task.contextId);
    });
  });

  describe('execution modes (spec §3.1.1, §3.2.2)', () => {
    it('blocks until the task is terminal', async () => {
      let answered = false;
      const pending = engine.sendMessage(send('gated blocking'), call).then((r) => ((answered = true), r));
      gates.open('blocking:1', 'blocking:2');
      for (let i = 0; i < 10; i++) await settle();
      expect(answered).toBe(false);
      gates.open('blocking:3');
      const result = await pending;
      if (!('task' in result)) throw new Error('expected a task');
      expect(result.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(result.task.artifacts).toHaveLength(1);
    });

    it('returns right after creating the task with returnImmediately', async () => {
      const result = await engine.sendMessage(
        send('gated immediate', {}, { configuration: { returnImmediately: true } }),
        call,
      );
      if (!('task' in result)) throw new Error('expected a task');
      expect(result.task.status.state).toBe('TASK_STATE_WORKING');
      const watcher = await subscribe(result.task.id);
      gates.open('immediate:1', 'immediate:2', 'immediate:3');
      await watcher.done();
      expect((await engine.getTask({ id: result.task.id }, call)).status.state).toBe('TASK_STATE_COMPLETED');
    });

    it('applies historyLength to the returned task', async () => {
      const { task } = (await engine.sendMessage(send('ask'), call)) as { task: Task };
      const result = await engine.sendMessage(
        send('later', { taskId: task.id }, { configuration: { historyLength: 1 } }),
        call,
      );
      expect('task' in result && result.task.history?.map(text)).toEqual(['Booked for later']);
      const none = await engine.sendMessage(send('finish', {}, { configuration: { historyLength: 0 } }), call);
      expect('task' in none && 'history' in none.task).toBe(false);
    });

    it('answers a skill’s Message reply as {message} and stores no task', async () => {
      const contextId = randomUUID();
      const result = await engine.sendMessage(send('reply', { contextId }), call);
      expect(result).toEqual({
        message: { messageId: expect.any(String), role: 'ROLE_AGENT', parts: [{ text: 'just a message' }], contextId },
      });
      expect('taskId' in (result as { message: Message }).message).toBe(false);

      const stream = new Recorder(engine.sendStreamingMessage(send('reply', { contextId }), call));
      await stream.done();
      expect(stream.events.map(shape)).toEqual(['message:just a message']);
      expect(stream.completed).toBe(true);
      expect((await engine.listTasks({ contextId }, call)).totalSize).toBe(0);
      expect(bus.watchedTaskCount).toBe(0);
    });
  });

  describe('routing', () => {
    const handledBy = async (request: SendMessageRequest) => {
      const result = await engine.sendMessage(request, call);
      return 'task' in result ? text(result.task.status.message) : text(result.message);
    };

    it('uses the skill named in message metadata, before the router', async () => {
      expect(await handledBy(send('route-me please', { metadata: { [SKILL_ID_METADATA_KEY]: 'other' } }))).toBe(
        'handled by other',
      );
    });

    it('uses the skill named in request metadata', async () => {
      expect(await handledBy(send('hello', {}, { metadata: { [SKILL_ID_METADATA_KEY]: 'other' } }))).toBe(
        'handled by other',
      );
    });

    it('asks the user’s router when no skill is named', async () => {
      expect(await handledBy(send('route-me please'))).toBe('handled by routed');
    });

    it('falls back to the default skill when the router has no opinion', async () => {
      expect(await handledBy(send('hello'))).toBe('handled by scripted');
    });

    it.each([
      ['metadata', send('hello', { metadata: { [SKILL_ID_METADATA_KEY]: 'ghost' } as JsonObject })],
      ['the router', send('route-nowhere')],
    ])('rejects an unknown skill id from %s with InvalidParams and a clear message', async (_label, request) => {
      const error = await rejection(engine.sendMessage(request, call));
      expect(error.kind).toBe('InvalidParams');
      expect(error.fieldViolations).toEqual([
        { field: 'message.metadata', description: A2aMessages.unknownSkill('ghost', app.get(SkillRegistry).ids()) },
      ]);
      expect(error.message).toContain('No skill "ghost"');
    });

    it('keeps a follow-up with the task’s skill, whatever the router says', async () => {
      const { task } = (await engine.sendMessage(send('ask'), call)) as { task: Task };
      const result = await engine.sendMessage(send('route-me 2026-12-24', { taskId: task.id }), call);
      expect('task' in result && text(result.task.status.message)).toBe('Booked for route-me 2026-12-24');
    });
  });

  async function waitUntil(condition: () => boolean): Promise<void> {
    const deadline = Date.now() + WAIT_MS;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await settle();
    }
  }
});

describe('A2aEngine routing without a default skill or router', () => {
  @AgentSkill({ id: 'first', name: 'First', description: 'One of two', tags: ['test'] })
  class FirstSkill extends A2aSkillHandler {
    handle() {
      return [complete('first')];
    }
  }

  @AgentSkill({ id: 'second', name: 'Second', description: 'One of two', tags: ['test'] })
  class SecondSkill extends A2aSkillHandler {
    handle() {
      return [complete('second')];
    }
  }

  let app: INestApplication;
  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [A2aModule.forRoot({ card: { name: 'Two skills', description: 'No default' } })],
      providers: [FirstSkill, SecondSkill],
    }).compile();
    app = createTestApplication(moduleRef);
    await app.init();
  });
  afterAll(() => app.close());

  it('rejects an unrouted message with InvalidParams naming the skills', async () => {
    const error = await rejection(app.get(A2aEngine).sendMessage(send('hello'), call));
    expect(error.kind).toBe('InvalidParams');
    expect(error.fieldViolations[0].description).toBe(A2aMessages.unroutable(app.get(SkillRegistry).ids()));
  });

  it('still serves a message that names its skill', async () => {
    const result = await app
      .get(A2aEngine)
      .sendMessage(send('hello', { metadata: { [SKILL_ID_METADATA_KEY]: 'second' } }), call);
    expect('task' in result && text(result.task.status.message)).toBe('second');
  });
});
