import { skillIdOf, taskIdOf } from '../../libs/a2a/src/bindings/a2a-operations.js';
import { bindingOfPath } from '../../libs/a2a/src/bindings/http/binding-paths.js';
import { callContextOf } from '../../libs/a2a/src/context/call-context.js';
import type { A2aInvocation } from '../../libs/a2a/src/context/a2a-invocation.js';
import { userPropertyPrincipal } from '../../libs/a2a/src/context/principal.resolver.js';

const invocation = (extra: Partial<A2aInvocation> = {}): A2aInvocation => ({
  operation: 'GetTask',
  binding: 'HTTP+JSON',
  request: { id: 't-1' },
  tenant: 'acme',
  version: '1.0',
  extensions: ['https://e.example/x'],
  headers: {},
  ...extra,
});

describe('taskIdOf and skillIdOf', () => {
  it('name the task a request is about: a push config’s taskId, not its id', () => {
    expect(taskIdOf({ id: 't-1' })).toBe('t-1');
    expect(taskIdOf({ taskId: 't-2', id: 'config-1' })).toBe('t-2');
    expect(taskIdOf({ message: { taskId: 't-3' } })).toBe('t-3');
    expect(taskIdOf({ message: {} })).toBeUndefined();
  });

  it('name the skill a message asks for, the message’s metadata first', () => {
    const key = 'nestjs-a2a/skillId';
    expect(skillIdOf({ message: { metadata: { [key]: 'a' } }, metadata: { [key]: 'b' } })).toBe('a');
    expect(skillIdOf({ message: {}, metadata: { [key]: 'b' } })).toBe('b');
    expect(skillIdOf({ message: { metadata: { [key]: 7 } } })).toBeUndefined();
  });
});

describe('callContextOf', () => {
  it('takes the principal a guard set over the resolver’s, and the resolver’s over anonymous', () => {
    const resolved = { id: 'from-resolver', authenticated: true };
    expect(callContextOf(invocation({ principal: { id: 'guard', authenticated: true } }), {}, () => resolved).principal.id).toBe('guard');
    expect(callContextOf(invocation(), {}, () => resolved).principal.id).toBe('from-resolver');
    expect(callContextOf(invocation(), {}, () => undefined)).toEqual({
      principal: { id: 'anonymous', authenticated: false },
      tenant: 'acme',
      binding: 'HTTP+JSON',
      version: '1.0',
      extensions: ['https://e.example/x'],
    });
  });
});

describe('userPropertyPrincipal (Passport’s req.user)', () => {
  it.each([
    [{ id: 42 }, '42'],
    [{ sub: 'auth0|7' }, 'auth0|7'],
    [{ userId: 'u' }, 'u'],
    [{ username: 'ada' }, 'ada'],
  ])('reads %j as user:%s', (user, subject) => {
    expect(userPropertyPrincipal({ user }, invocation())).toEqual({ id: `user:${subject}`, subject, authenticated: true, claims: user });
  });

  it.each([undefined, null, 'alice', { name: 'no id' }, { id: { nested: true } }])('finds no principal in %j', (user) => {
    expect(userPropertyPrincipal({ user }, invocation())).toBeUndefined();
  });
});

describe('bindingOfPath', () => {
  const mounts = { jsonRpc: '/a2a/jsonrpc', rest: '/a2a/rest' };

  it('recognizes the mounts, also below a global prefix', () => {
    expect(bindingOfPath('/a2a/jsonrpc', mounts)).toEqual({ binding: 'jsonrpc' });
    expect(bindingOfPath('/api/a2a/jsonrpc/', mounts)).toEqual({ binding: 'jsonrpc' });
    expect(bindingOfPath('/a2a/rest/tasks/t-1', mounts)).toEqual({ binding: 'rest', route: '/tasks/t-1' });
    expect(bindingOfPath('/a2a/rest', mounts)).toEqual({ binding: 'rest', route: '/' });
    expect(bindingOfPath('/app/echo', mounts)).toBeUndefined();
  });

  it('at the root, claims only the bindings’ own path shapes', () => {
    const root = { jsonRpc: '/', rest: '' };
    expect(bindingOfPath('/', root)).toEqual({ binding: 'jsonrpc' });
    expect(bindingOfPath('/tasks/t-1/x', root)).toEqual({ binding: 'rest', route: '/tasks/t-1/x' });
    expect(bindingOfPath('/health', root)).toBeUndefined();
    expect(bindingOfPath('/.well-known/agent-card.json', root)).toBeUndefined();
  });
});
