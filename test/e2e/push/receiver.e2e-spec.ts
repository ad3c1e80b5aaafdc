import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { firstValueFrom, lastValueFrom, take, toArray, type Observable } from 'rxjs';
import {
  A2aPushEvents,
  A2aPushReceiverModule,
  PushReceiverMessages,
  type A2aPushReceiverOptions,
  type A2aPushRequest,
} from '../../../libs/a2a/src/push-receiver.js';
import { PushEventHub } from '../../../libs/a2a/src/push-receiver/push-event.hub.js';
import { MAX_PUSH_BODY_DEPTH } from '../../../libs/a2a/src/push-receiver/pushed-event.reader.js';
import type { StreamResponse } from '../../../libs/a2a/src/protocol/a2a.types.js';
import {
  artifactUpdate,
  push,
  pushUnfinished,
  startReceiverApp,
  statusUpdate,
  type HttpAdapterName,
} from './receiver-app.js';

/**
 * The push notification webhook on both HTTP adapters, over real sockets: who may push (token, verify hook), what is
 * refused and how (401 before the body is read, 415, 413, 400), redeliveries dropped by event id, and the events as
 * Observables, per task in order until the task ends.
 */

const TOKEN = 'push-token-0123456789';

/** Collects what events$ emits while the test runs. */
function collect(events: Observable<StreamResponse>): StreamResponse[] {
  const seen: StreamResponse[] = [];
  events.subscribe((event) => seen.push(event));
  return seen;
}

describe.each<HttpAdapterName>(['express', 'fastify'])('push receiver on %s', (adapter) => {
  describe('with tokens', () => {
    let app: INestApplication;
    let endpoint: string;
    let events: A2aPushEvents;
    let hub: PushEventHub;

    beforeAll(async () => {
      const started = await startReceiverApp(
        adapter,
        A2aPushReceiverModule.register({ tokens: ['old-token', TOKEN], maxBodyBytes: 4096, dedupWindow: 3 }),
      );
      app = started.app;
      endpoint = `${started.url}/a2a/push`;
      events = app.get(A2aPushEvents);
      hub = app.get(PushEventHub);
    });
    afterAll(() => app.close());

    it('accepts an event with a token it knows, and emits it', async () => {
      const seen = collect(events.events$);
      const event = statusUpdate('t-ok', 'TASK_STATE_WORKING');
      expect(await push(endpoint, event, { token: TOKEN })).toEqual({ status: 200, body: '' });
      expect(await push(endpoint, event, { token: 'old-token' })).toMatchObject({ status: 200 });
      expect(seen).toEqual([event, event]);
    });

    it.each([
      ['a wrong token', { token: 'push-token-0123456788' }],
      ['a token of another length', { token: 'x' }],
      ['no token', {}],
      ['the token in Authorization instead', { authorization: `Bearer ${TOKEN}` }],
    ])('refuses %s with 401, and emits nothing', async (_case, options) => {
      const seen = collect(events.events$);
      const answer = await push(endpoint, statusUpdate('t-401', 'TASK_STATE_WORKING'), options);
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body)).toEqual({
        error: { code: 401, message: PushReceiverMessages.unauthenticated() },
      });
      expect(seen).toEqual([]);
    });

    it('refuses an unknown sender before reading its body', async () => {
      const answer = await pushUnfinished(
        endpoint,
        { 'content-type': 'application/a2a+json', 'x-a2a-notification-token': 'nope' },
        { declaredBytes: 50 * 1024 * 1024, sentBytes: 1024 },
      );
      expect(answer.status).toBe(401);
      // Too large to drain: the connection is closed instead of reading the rest.
      expect(answer.headers.connection).toBe('close');
    });

    it('refuses a declared size over maxBodyBytes with 413 before reading the body', async () => {
      const answer = await pushUnfinished(
        endpoint,
        { 'content-type': 'application/a2a+json', 'x-a2a-notification-token': TOKEN },
        { declaredBytes: 10_000, sentBytes: 10 },
      );
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body).error.message).toBe(PushReceiverMessages.tooLarge(4096));
    });

    it('refuses a body over maxBodyBytes with 413', async () => {
      const event = artifactUpdate('t-413', 'x'.repeat(5000));
      expect((await push(endpoint, event, { token: TOKEN })).status).toBe(413);
      // Sent in chunks, without a declared length: refused when the limit is crossed.
      const chunked = new ReadableStream<Uint8Array>({
        start(controller) {
          const bytes = new TextEncoder().encode(JSON.stringify(event));
          for (let at = 0; at < bytes.length; at += 1000) controller.enqueue(bytes.slice(at, at + 1000));
          controller.close();
        },
      });
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/a2a+json', 'x-a2a-notification-token': TOKEN },
        body: chunked,
        duplex: 'half',
      } as RequestInit);
      expect(response.status).toBe(413);
    });

    it.each([
      ['text/plain', { contentType: 'text/plain' }],
      ['no Content-Type', { contentType: null }],
      ['application/x-www-form-urlencoded', { contentType: 'application/x-www-form-urlencoded' }],
      ['a compressed body', { headers: { 'content-encoding': 'gzip' } }],
    ])('refuses %s with 415', async (_case, options) => {
      const answer = await push(endpoint, statusUpdate('t-415', 'TASK_STATE_WORKING'), { token: TOKEN, ...options });
      expect(answer.status).toBe(415);
      // The receiver's answer, not the adapter's.
      expect(JSON.parse(answer.body).error.message).toMatch(/^Content-(Type|Encoding) .* is not accepted/);
    });

    it('checks the sender before the media type', async () => {
      expect((await push(endpoint, 'hello', { contentType: 'text/plain' })).status).toBe(401);
    });

    it('accepts application/json and parameters of the media type', async () => {
      const seen = collect(events.events$);
      const event = statusUpdate('t-json', 'TASK_STATE_WORKING');
      expect((await push(endpoint, event, { token: TOKEN, contentType: 'application/json' })).status).toBe(200);
      expect(
        (await push(endpoint, event, { token: TOKEN, contentType: 'Application/A2A+JSON; charset=utf-8' })).status,
      ).toBe(200);
      expect(seen).toEqual([event, event]);
    });

    it.each<[string, unknown, string]>([
      ['invalid JSON', '{"statusUpdate":', PushReceiverMessages.notJson()],
      ['an empty body', '', PushReceiverMessages.notJson()],
      [
        'a JSON array',
        [statusUpdate('t', 'TASK_STATE_WORKING')],
        PushReceiverMessages.notStreamResponse('it must be a JSON object'),
      ],
      [
        'no member',
        { metadata: {} },
        PushReceiverMessages.notStreamResponse(
          'exactly one of task, message, statusUpdate, artifactUpdate must be set',
        ),
      ],
      [
        'two members',
        { ...statusUpdate('t', 'TASK_STATE_WORKING'), ...artifactUpdate('t', 'x') },
        PushReceiverMessages.notStreamResponse(
          'exactly one of task, message, statusUpdate, artifactUpdate must be set, not statusUpdate and artifactUpdate',
        ),
      ],
      [
        'a status update without taskId',
        { statusUpdate: { contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
        PushReceiverMessages.notStreamResponse('statusUpdate.taskId must be a non-empty string'),
      ],
      [
        'a status update without state',
        { statusUpdate: { taskId: 't', contextId: 'c', status: {} } },
        PushReceiverMessages.notStreamResponse('statusUpdate.status.state must be a string'),
      ],
      [
        'an artifact update without artifact',
        { artifactUpdate: { taskId: 't', contextId: 'c' } },
        PushReceiverMessages.notStreamResponse('artifactUpdate.artifact must be an object'),
      ],
      [
        'a task without id',
        { task: { contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
        PushReceiverMessages.notStreamResponse('task.id must be a non-empty string'),
      ],
      [
        'a v0.3 task',
        { kind: 'task', id: 't', contextId: 'c', status: { state: 'completed' } },
        PushReceiverMessages.notStreamResponse('a v0.3 payload (kind "task") is not A2A v1.0'),
      ],
    ])('refuses %s with 400', async (_case, body, message) => {
      const answer = await push(endpoint, body, { token: TOKEN });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body).error.message).toBe(message);
    });

    it('refuses a body nested deeper than any agent sends, without walking it recursively', async () => {
      const deep = '['.repeat(1000) + ']'.repeat(1000);
      const body = `{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"},"metadata":{"x":${deep}}}}`;
      const answer = await push(endpoint, body, { token: TOKEN });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body).error.message).toContain(`nests more than ${MAX_PUSH_BODY_DEPTH} levels`);
    });

    it('acknowledges a redelivered event id with 200 and does not emit it again', async () => {
      const seen = collect(events.events$);
      const first = statusUpdate('t-dup', 'TASK_STATE_WORKING');
      expect((await push(endpoint, first, { token: TOKEN, eventId: 't-dup:1' })).status).toBe(200);
      expect((await push(endpoint, first, { token: TOKEN, eventId: 't-dup:1' })).status).toBe(200);
      const second = artifactUpdate('t-dup', 'chunk');
      expect((await push(endpoint, second, { token: TOKEN, eventId: 't-dup:2' })).status).toBe(200);
      expect((await push(endpoint, first, { token: TOKEN, eventId: 't-dup:1' })).status).toBe(200);
      expect(seen).toEqual([first, second]);
    });

    it("drops a redelivery of the same sender's event only: another token's, or another task's, same id passes", async () => {
      const seen = collect(events.events$);
      const first = statusUpdate('t-scope', 'TASK_STATE_WORKING');
      const otherTask = statusUpdate('t-scope-2', 'TASK_STATE_WORKING');
      expect((await push(endpoint, first, { token: TOKEN, eventId: '1' })).status).toBe(200);
      expect((await push(endpoint, first, { token: 'old-token', eventId: '1' })).status).toBe(200);
      expect((await push(endpoint, otherTask, { token: TOKEN, eventId: '1' })).status).toBe(200);
      expect((await push(endpoint, first, { token: TOKEN, eventId: '1' })).status).toBe(200);
      expect(seen).toEqual([first, first, otherTask]);
    });

    it('remembers the last dedupWindow ids only', async () => {
      const seen = collect(events.events$);
      const event = statusUpdate('t-window', 'TASK_STATE_WORKING');
      for (const seq of [1, 2, 3, 4]) await push(endpoint, event, { token: TOKEN, eventId: `t-window:${seq}` });
      // The window holds 3 ids: 2, 3 and 4; 1 was forgotten.
      await push(endpoint, event, { token: TOKEN, eventId: 't-window:4' });
      await push(endpoint, event, { token: TOKEN, eventId: 't-window:1' });
      expect(seen).toHaveLength(5);
    });

    it('passes on every delivery of a sender that sends no event id', async () => {
      const seen = collect(events.events$);
      const event = artifactUpdate('t-no-id', 'same chunk');
      await push(endpoint, event, { token: TOKEN });
      await push(endpoint, event, { token: TOKEN });
      expect(seen).toEqual([event, event]);
    });

    it('keeps the order of a task’s events in forTask, and completes it at the terminal status', async () => {
      const mine = lastValueFrom(events.forTask('t-order').pipe(toArray()));
      const otherSeen: StreamResponse[] = [];
      let otherDone = false;
      const other = events
        .forTask('t-other')
        .subscribe({ next: (event) => otherSeen.push(event), complete: () => (otherDone = true) });
      const sequence = [
        statusUpdate('t-order', 'TASK_STATE_WORKING'),
        artifactUpdate('t-order', 'one'),
        statusUpdate('t-other', 'TASK_STATE_WORKING'),
        artifactUpdate('t-order', 'two'),
        artifactUpdate('t-order', 'three'),
        statusUpdate('t-order', 'TASK_STATE_COMPLETED'),
      ];
      for (const [seq, event] of sequence.entries()) {
        expect((await push(endpoint, event, { token: TOKEN, eventId: `order:${seq}` })).status).toBe(200);
      }
      expect(await mine).toEqual(sequence.filter((_, i) => i !== 2));
      expect(otherSeen).toEqual([sequence[2]]);
      expect(otherDone).toBe(false);
      other.unsubscribe();
    });

    it.each(['TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'] as const)(
      'completes forTask at %s',
      async (state) => {
        const taskId = `t-${state}`;
        const all = lastValueFrom(events.forTask(taskId).pipe(toArray()));
        const event = statusUpdate(taskId, state);
        await push(endpoint, event, { token: TOKEN });
        expect(await all).toEqual([event]);
      },
    );

    it('completes forTask at a task in a terminal state, and routes messages by their taskId', async () => {
      const all = lastValueFrom(events.forTask('t-task').pipe(toArray()));
      const message: StreamResponse = {
        message: { messageId: 'm-1', taskId: 't-task', role: 'ROLE_AGENT', parts: [{ text: 'done soon' }] },
      };
      const task: StreamResponse = {
        task: { id: 't-task', contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' } },
      };
      await push(endpoint, message, { token: TOKEN });
      await push(endpoint, task, { token: TOKEN });
      expect(await all).toEqual([message, task]);
    });

    it('holds nothing for tasks nobody watches', async () => {
      expect(hub.watchedTasks).toBe(0);
      await push(endpoint, statusUpdate('t-unwatched', 'TASK_STATE_WORKING'), { token: TOKEN });
      expect(hub.watchedTasks).toBe(0);
      const subscription = events.forTask('t-left').subscribe();
      const second = events.forTask('t-left').subscribe();
      expect(hub.watchedTasks).toBe(1);
      subscription.unsubscribe();
      expect(hub.watchedTasks).toBe(1);
      second.unsubscribe();
      expect(hub.watchedTasks).toBe(0);
      // A terminal event forgets the watchers it completes.
      const ended = lastValueFrom(events.forTask('t-ends'));
      expect(hub.watchedTasks).toBe(1);
      await push(endpoint, statusUpdate('t-ends', 'TASK_STATE_COMPLETED'), { token: TOKEN });
      await ended;
      expect(hub.watchedTasks).toBe(0);
    });

    it('answers other methods as the app does (no route)', async () => {
      expect((await fetch(endpoint)).status).toBe(404);
    });
  });

  describe('with tokens given per task', () => {
    let app: INestApplication;
    let endpoint: string;
    let events: A2aPushEvents;
    const issued = new Map<string, string | string[]>([
      ['t-a', 'token-a'],
      ['t-b', ['token-b1', 'token-b2']],
    ]);
    const tokens = (taskId: string) => {
      if (taskId === 't-broken') throw new Error('token table unreachable');
      return issued.get(taskId);
    };

    beforeAll(async () => {
      const started = await startReceiverApp(adapter, A2aPushReceiverModule.register({ tokens }));
      app = started.app;
      endpoint = `${started.url}/a2a/push`;
      events = app.get(A2aPushEvents);
    });
    afterAll(() => app.close());

    it("accepts a task's token for that task's events only", async () => {
      const seen = collect(events.events$);
      const forA = statusUpdate('t-a', 'TASK_STATE_WORKING');
      const forB = statusUpdate('t-b', 'TASK_STATE_WORKING');
      expect((await push(endpoint, forA, { token: 'token-a' })).status).toBe(200);
      expect((await push(endpoint, forB, { token: 'token-b2' })).status).toBe(200);
      for (const [event, token] of [
        [forB, 'token-a'],
        [forA, 'token-b1'],
        [statusUpdate('t-unknown', 'TASK_STATE_WORKING'), 'token-a'],
      ] as const) {
        const answer = await push(endpoint, event, { token });
        expect(answer.status).toBe(401);
        expect(JSON.parse(answer.body)).toEqual({
          error: { code: 401, message: PushReceiverMessages.unauthenticated() },
        });
      }
      expect(seen).toEqual([forA, forB]);
    });

    it('refuses an event of no task, and a sender without a token', async () => {
      const message: StreamResponse = { message: { messageId: 'm-1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } };
      expect((await push(endpoint, message, { token: 'token-a' })).status).toBe(401);
      expect((await push(endpoint, statusUpdate('t-a', 'TASK_STATE_WORKING'), {})).status).toBe(401);
    });

    it('answers 500 when the function fails, so the sender retries later', async () => {
      const answer = await push(endpoint, statusUpdate('t-broken', 'TASK_STATE_WORKING'), { token: 'token-a' });
      expect(answer.status).toBe(500);
      expect(JSON.parse(answer.body).error.message).toBe(PushReceiverMessages.verifyFailed());
    });
  });

  describe('with a verify hook', () => {
    let app: INestApplication;
    let endpoint: string;
    const seenRequests: A2aPushRequest[] = [];

    const verify = async (request: A2aPushRequest) => {
      seenRequests.push(request);
      if (request.authorization === 'Bearer broken') throw new Error('identity provider down');
      return request.authorization === 'Bearer agent-credentials';
    };

    beforeAll(async () => {
      const started = await startReceiverApp(
        adapter,
        A2aPushReceiverModule.registerAsync({
          useFactory: async (): Promise<A2aPushReceiverOptions> => ({ path: '/hooks/a2a', verify }),
        }),
        (nestApp) => nestApp.setGlobalPrefix('api'),
      );
      app = started.app;
      endpoint = `${started.url}/api/hooks/a2a`;
    });
    afterAll(() => app.close());

    it('lets the hook decide from Authorization, mounted at the factory’s path below the global prefix', async () => {
      const events = app.get(A2aPushEvents);
      const next = firstValueFrom(events.events$.pipe(take(1)));
      const event = statusUpdate('t-verify', 'TASK_STATE_WORKING');
      expect(
        (await push(endpoint, event, { authorization: 'Bearer agent-credentials', eventId: 't-verify:0' })).status,
      ).toBe(200);
      expect(await next).toEqual(event);
      expect(seenRequests.at(-1)).toMatchObject({
        authorization: 'Bearer agent-credentials',
        eventId: 't-verify:0',
        notificationToken: undefined,
      });
      expect((await push(endpoint, event, { authorization: 'Bearer someone-else' })).status).toBe(401);
      expect((await push(endpoint, event, {})).status).toBe(401);
    });

    it('answers 500 when the hook fails, so the sender retries later', async () => {
      const answer = await push(endpoint, statusUpdate('t-verify', 'TASK_STATE_WORKING'), {
        authorization: 'Bearer broken',
      });
      expect(answer.status).toBe(500);
      expect(JSON.parse(answer.body).error.message).toBe(PushReceiverMessages.verifyFailed());
    });
  });
});
