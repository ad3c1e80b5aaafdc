import 'reflect-metadata';
import { Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { lastValueFrom, toArray } from 'rxjs';
import { A2aModule, A2aSkillHandler, AgentSkill, complete, type SkillContext } from '../../../libs/a2a/src/index.js';
import {
  A2aPushEvents,
  A2aPushReceiverModule,
  DEFAULT_PUSH_PATH,
  InvalidPushReceiverOptionsError,
  PushReceiverMessages,
  type A2aPushReceiverOptions,
} from '../../../libs/a2a/src/push-receiver.js';
import { push, startReceiverApp, statusUpdate, type HttpAdapterName } from './receiver-app.js';

/**
 * Options are checked when the app is created (a webhook that would refuse, or accept, every sender must not start),
 * `isGlobal` makes the events injectable app-wide, and the receiver sits beside the agent's own routes in one app
 * (an agent that is also a client of other agents).
 */

async function bootError(options: A2aPushReceiverOptions, asynchronously = false): Promise<unknown> {
  const module = asynchronously
    ? A2aPushReceiverModule.registerAsync({ useFactory: () => options })
    : A2aPushReceiverModule.register(options);
  const moduleRef = await Test.createTestingModule({ imports: [module] })
    .compile()
    .catch((error: unknown) => error);
  if (moduleRef instanceof Error) return moduleRef;
  const app = (
    moduleRef as Awaited<ReturnType<ReturnType<typeof Test.createTestingModule>['compile']>>
  ).createNestApplication({ logger: false });
  try {
    await app.init();
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await app.close().catch(() => undefined);
  }
}

describe('push receiver options', () => {
  it.each<[string, A2aPushReceiverOptions, string]>([
    ['neither tokens nor verify', {}, PushReceiverMessages.noVerification()],
    [
      'no token',
      { tokens: [] },
      PushReceiverMessages.invalidOption(
        'tokens',
        [],
        'a non-empty array of non-empty strings, or a function of the task id',
      ),
    ],
    [
      'an empty token',
      { tokens: ['ok', ''] },
      PushReceiverMessages.invalidOption('tokens[1]', '', 'a non-empty string'),
    ],
    [
      'a verify that is no function',
      { verify: true as never },
      PushReceiverMessages.invalidOption('verify', true, 'a function'),
    ],
    [
      'a relative path',
      { tokens: ['t'], path: 'a2a/push' },
      PushReceiverMessages.invalidOption(
        'path',
        'a2a/push',
        "a path starting with '/', of literal segments (no parameters or wildcards)",
      ),
    ],
    [
      'a path with a parameter',
      { tokens: ['t'], path: '/push/:id' },
      PushReceiverMessages.invalidOption(
        'path',
        '/push/:id',
        "a path starting with '/', of literal segments (no parameters or wildcards)",
      ),
    ],
    [
      'maxBodyBytes 0',
      { tokens: ['t'], maxBodyBytes: 0 },
      PushReceiverMessages.invalidOption('maxBodyBytes', 0, 'a positive integer'),
    ],
    [
      'dedupWindow -1',
      { tokens: ['t'], dedupWindow: -1 },
      PushReceiverMessages.invalidOption('dedupWindow', -1, 'an integer of 0 or more'),
    ],
    [
      'dedupWindow 1.5',
      { tokens: ['t'], dedupWindow: 1.5 },
      PushReceiverMessages.invalidOption('dedupWindow', 1.5, 'an integer of 0 or more'),
    ],
  ])('refuses %s, given to register() or registerAsync()', async (_case, options, message) => {
    for (const asynchronously of [false, true]) {
      const error = await bootError(options, asynchronously);
      expect(error).toBeInstanceOf(InvalidPushReceiverOptionsError);
      expect((error as Error).message).toBe(message);
    }
  });

  it('boots with tokens, with verify, or with both', async () => {
    expect(await bootError({ tokens: ['t'] })).toBeUndefined();
    expect(await bootError({ verify: () => true })).toBeUndefined();
    expect(await bootError({ tokens: ['t'], verify: () => true, path: '/hooks/a2a/', dedupWindow: 0 })).toBeUndefined();
  });

  it('with tokens and verify, a sender must pass both', async () => {
    const { app, url } = await startReceiverApp(
      'express',
      A2aPushReceiverModule.register({ tokens: ['t'], verify: ({ authorization }) => authorization === 'Basic ok' }),
    );
    try {
      const event = statusUpdate('t-both', 'TASK_STATE_WORKING');
      expect((await push(`${url}${DEFAULT_PUSH_PATH}`, event, { token: 't', authorization: 'Basic ok' })).status).toBe(
        200,
      );
      expect((await push(`${url}${DEFAULT_PUSH_PATH}`, event, { token: 't' })).status).toBe(401);
      expect((await push(`${url}${DEFAULT_PUSH_PATH}`, event, { authorization: 'Basic ok' })).status).toBe(401);
    } finally {
      await app.close();
    }
  });
});

@AgentSkill({ id: 'relay', name: 'Relay', description: 'Completes', tags: ['test'] })
class RelaySkill extends A2aSkillHandler {
  handle(_context: SkillContext) {
    return [complete()];
  }
}

/** Another module of the app, which gets A2aPushEvents from the global receiver. */
@Module({})
class WatcherModule {}

@Module({
  imports: [
    A2aModule.forRoot({
      card: { name: 'Agent and client', description: 'Serves A2A, and receives pushes' },
      baseUrl: 'http://localhost:3000',
    }),
    A2aPushReceiverModule.register({ tokens: ['beside'], isGlobal: true }),
    WatcherModule,
  ],
  providers: [RelaySkill],
})
class AgentAndClientModule {}

describe.each<HttpAdapterName>(['express', 'fastify'])('push receiver beside A2aModule on %s', (adapter) => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await startReceiverApp(adapter, AgentAndClientModule));
  });
  afterAll(() => app.close());

  it('serves the agent’s routes and the webhook side by side', async () => {
    const events = app.select(WatcherModule).get(A2aPushEvents);
    const received = lastValueFrom(events.forTask('t-beside').pipe(toArray()));
    // Twice: the first request of an Express app decides how A2A requests are dispatched.
    for (let i = 0; i < 2; i++) {
      const sent = await fetch(`${url}/a2a/rest/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/a2a+json' },
        body: JSON.stringify({ message: { messageId: `m-${i}`, role: 'ROLE_USER', parts: [{ text: 'hi' }] } }),
      });
      expect(((await sent.json()) as { task: { status: { state: string } } }).task.status.state).toBe(
        'TASK_STATE_COMPLETED',
      );
    }
    const working = statusUpdate('t-beside', 'TASK_STATE_WORKING');
    const done = statusUpdate('t-beside', 'TASK_STATE_COMPLETED');
    expect((await push(`${url}/a2a/push`, working, { token: 'beside' })).status).toBe(200);
    expect((await push(`${url}/a2a/push`, done, { token: 'beside' })).status).toBe(200);
    expect(await received).toEqual([working, done]);
    expect((await push(`${url}/a2a/push`, done, { token: 'wrong' })).status).toBe(401);
  });
});
