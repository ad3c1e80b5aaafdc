import { isRootRestPath, restMethodsAt } from './rest.routes.js';

describe('isRootRestPath', () => {
  it.each([
    '/message:send',
    '/message:stream',
    '/tasks',
    '/tasks/t-1',
    '/tasks/t-1:cancel',
    '/tasks/t-1:subscribe',
    '/tasks/t-1/pushNotificationConfigs',
    '/tasks/t-1/pushNotificationConfigs/c-1',
    '/extendedAgentCard',
    '/acme/message:send',
    '/acme/tasks/t-1:cancel',
    '/acme/extendedAgentCard/',
    '/message:nonsense',
    '/acme/tasks/t-1/other',
  ])('matches %s', (path) => {
    expect(isRootRestPath(path)).toBe(true);
  });

  it.each(['/', '/.well-known/agent-card.json', '/message', '/app/echo', '/a/b/tasks', '/taskset', '/acme/messages'])(
    'does not match %s',
    (path) => {
      expect(isRootRestPath(path)).toBe(false);
    },
  );
});

describe('restMethodsAt', () => {
  it.each([
    ['/message:send', ['POST']],
    ['/acme/message:stream', ['POST']],
    ['/tasks', ['GET']],
    ['/tasks/t-1', ['GET']],
    // `tasks/:id` also matches, as Express would route GET /tasks/t-1:subscribe to SubscribeToTask first.
    ['/tasks/t-1:subscribe', ['GET', 'POST']],
    ['/tasks/t-1:cancel', ['GET', 'POST']],
    ['/tasks/t-1/pushNotificationConfigs', ['GET', 'POST']],
    ['/tasks/t-1/pushNotificationConfigs/c-1/', ['DELETE', 'GET']],
    ['/extendedAgentCard', ['GET']],
  ])('%s is served with %j', (path, methods) => {
    expect(restMethodsAt(path)).toEqual(methods);
  });

  it.each(['/message:nonsense', '/tasks/t-1/other', '/a/b/c/d'])('%s is no route', (path) => {
    expect(restMethodsAt(path)).toEqual([]);
  });
});
