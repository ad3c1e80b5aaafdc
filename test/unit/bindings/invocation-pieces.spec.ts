import { skillIdOf, taskIdOf } from '../../../libs/a2a/src/bindings/a2a-operations.js';
import { bindingOfPath, servedPathOf } from '../../../libs/a2a/src/bindings/http/binding-paths.js';
import { ANONYMOUS_PRINCIPAL, ownerKeyOf, scopeOf } from '../../../libs/a2a/src/context/call-context.js';
import { callContextOf } from '../../../libs/a2a/src/bindings/call-context.factory.js';
import type { A2aInvocation } from '../../../libs/a2a/src/context/a2a-invocation.js';
import { userPropertyPrincipal } from '../../../libs/a2a/src/context/principal.resolver.js';
import { principalOf } from '../../../libs/a2a/src/security/a2a-security.policy.js';

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
    expect(
      callContextOf(invocation({ principal: { id: 'guard', authenticated: true } }), {}, () => resolved).principal.id,
    ).toBe('guard');
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
    expect(userPropertyPrincipal({ user }, invocation())).toEqual({
      id: `user:${subject}`,
      subject,
      authenticated: true,
      claims: user,
    });
  });

  it.each([undefined, null, 'alice', { name: 'no id' }, { id: { nested: true } }])(
    'finds no principal in %j',
    (user) => {
      expect(userPropertyPrincipal({ user }, invocation())).toBeUndefined();
    },
  );
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

describe('servedPathOf', () => {
  const mounts = { jsonRpc: '/a2a/jsonrpc', rest: '/a2a/rest' };

  it('tells the served paths under the global prefix from those that only look like them', () => {
    expect(servedPathOf('/api/a2a/jsonrpc/', 'jsonrpc', mounts, 'api')).toEqual({ kind: 'jsonrpc-endpoint' });
    expect(servedPathOf('/a2a/jsonrpc', 'jsonrpc', mounts, 'api')).toEqual({
      kind: 'elsewhere',
      servedAt: '/api/a2a/jsonrpc',
    });
    expect(servedPathOf('/api/a2a/rest/tasks/t-1', 'rest', mounts, '/api/')).toEqual({
      kind: 'rest-route',
      route: '/tasks/t-1',
    });
    expect(servedPathOf('/api/a2a/rest', 'rest', mounts, 'api')).toEqual({ kind: 'rest-route', route: '/' });
    expect(servedPathOf('/x/a2a/rest/message:send', 'rest', mounts, '')).toEqual({
      kind: 'elsewhere',
      servedAt: '/a2a/rest',
    });
  });

  it('compares without case, and names the served path as mounted', () => {
    const mixed = { jsonRpc: '/A2A/JsonRpc', rest: '/A2A/Rest' };
    expect(servedPathOf('/a2a/jsonrpc', 'jsonrpc', mixed, '')).toEqual({ kind: 'jsonrpc-endpoint' });
    expect(servedPathOf('/a2a/rest/tasks', 'rest', mixed, '')).toEqual({ kind: 'rest-route', route: '/tasks' });
    expect(servedPathOf('/a2a/jsonrpc', 'jsonrpc', mixed, 'Api')).toEqual({
      kind: 'elsewhere',
      servedAt: '/Api/A2A/JsonRpc',
    });
  });

  it('at the root, every path is below the HTTP+JSON prefix', () => {
    const root = { jsonRpc: '/', rest: '' };
    expect(servedPathOf('/tasks/t-1', 'rest', root, '')).toEqual({ kind: 'rest-route', route: '/tasks/t-1' });
    expect(servedPathOf('/', 'jsonrpc', root, '')).toEqual({ kind: 'jsonrpc-endpoint' });
    expect(servedPathOf('/tasks/t-1', 'rest', root, 'api')).toEqual({ kind: 'elsewhere', servedAt: '/api' });
  });
});

describe('owner keys, namespaced by how the principal was established', () => {
  const owner = (principal: Parameters<typeof ownerKeyOf>[0]) =>
    scopeOf({ principal, tenant: 't', binding: 'JSONRPC', version: '1.0', extensions: [] });

  it('keeps the anonymous owner apart from a Passport user, an app principal and a scheme subject all named "anonymous"', () => {
    const keys = [
      ownerKeyOf(ANONYMOUS_PRINCIPAL),
      ownerKeyOf(userPropertyPrincipal({ user: { id: 'anonymous' } }, invocation())!),
      ownerKeyOf({ id: 'anonymous', authenticated: true }),
      ownerKeyOf(principalOf({ apiKey: [] }, new Map([['apiKey', { subject: 'anonymous', scopes: [] }]]))),
    ];
    expect(keys).toEqual(['anonymous', 'user:anonymous', 'app:anonymous', 'apiKey:anonymous']);
    expect(owner(ANONYMOUS_PRINCIPAL)).toEqual({ tenant: 't', owner: 'anonymous' });
  });

  it("stores an app principal under app:<id> while it keeps its own id; a copy of a module principal is the app's", () => {
    const fromApp = { id: 'user:bob', authenticated: true };
    expect(owner(fromApp).owner).toBe('app:user:bob');
    expect(fromApp.id).toBe('user:bob');
    const passport = userPropertyPrincipal({ user: { id: 'bob' } }, invocation())!;
    expect(owner(passport).owner).toBe('user:bob');
    expect(owner({ ...passport }).owner).toBe('app:user:bob');
  });

  it('principalOf: scheme:issuer|subject from the first scheme of the alternative that held, anonymous without a grant', () => {
    const grants = new Map([
      ['basic', { subject: 'carol', scopes: ['a'] }],
      ['bearer', { subject: 'carol', issuer: 'https://idp.test', scopes: ['b'] }],
    ]);
    const principal = principalOf({ bearer: [], basic: [] }, grants);
    expect(principal).toMatchObject({
      id: 'bearer:https://idp.test|carol',
      subject: 'carol',
      authenticated: true,
      scopes: ['a', 'b'],
    });
    expect(ownerKeyOf(principal)).toBe(principal.id);
    expect(principalOf({}, new Map())).toBe(ANONYMOUS_PRINCIPAL);
  });
});
