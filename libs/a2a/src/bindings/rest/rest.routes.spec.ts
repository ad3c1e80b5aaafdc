import { isRestRoutePath } from './rest.routes.js';

describe('isRestRoutePath', () => {
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
  ])('matches %s', (path) => {
    expect(isRestRoutePath(path)).toBe(true);
  });

  it.each(['/', '/.well-known/agent-card.json', '/message', '/app/echo', '/a/b/tasks', '/acme/tasks/t-1/other'])('does not match %s', (path) => {
    expect(isRestRoutePath(path)).toBe(false);
  });
});
