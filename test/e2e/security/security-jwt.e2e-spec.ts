import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  bearerJwtScheme,
  oauth2Scheme,
  openIdConnectScheme,
  type A2aSecurityOptions,
} from '../../../libs/a2a/src/index.js';
import { IdentityProvider } from '../../fixtures/identity-provider.js';
import { GrpcJsonClient, type Json } from '../../fixtures/grpc-json.client.js';
import { startGrpcProbeApp, type GrpcProbeApp } from '../../fixtures/grpc-probe.fixture.js';
import { BINDINGS, call, type SecurityTarget } from '../../fixtures/security-calls.js';

/**
 * Bearer JWTs on all three bindings, with real tokens signed by a JWKS served on loopback
 * (tokens in security-token-schemes.spec.ts are checked scheme by scheme; here through the whole path).
 */

const AUDIENCE = 'probe-agent';
let idp: IdentityProvider;
let probe: GrpcProbeApp;
let target: SecurityTarget;

beforeAll(async () => {
  idp = await IdentityProvider.start();
  probe = await startGrpcProbeApp({
    a2a: {
      security: {
        schemes: {
          bearer: bearerJwtScheme({
            jwksUrl: idp.jwksUrl,
            issuer: idp.issuer,
            audience: AUDIENCE,
            allowInsecureHttp: ['127.0.0.1'],
          }),
        },
      },
    },
  });
  target = { httpUrl: probe.httpUrl, grpc: new GrpcJsonClient(probe.grpcAddress) };
});
afterAll(async () => {
  target?.grpc.close();
  await probe?.app.close();
  await idp?.stop();
});
afterEach(() => jest.useRealTimers());

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const send = (): Json => ({ message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'context' }] } });
const good = () => idp.token({ sub: 'alice', aud: AUDIENCE });

describe.each(BINDINGS)('%s', (binding) => {
  const status = async (headers: Record<string, string>) =>
    (await call(target, binding, 'ListTasks', {}, headers)).status;

  it('#1 no token: 401 / UNAUTHENTICATED with a Bearer challenge', async () => {
    const outcome = await call(target, binding, 'ListTasks', {});
    expect(outcome.status).toBe('UNAUTHENTICATED');
    expect(outcome.wwwAuthenticate).toEqual(['Bearer realm="a2a"']);
  });

  it('serves a valid token; the owner is the issuer and subject', async () => {
    const outcome = await call(target, binding, 'SendMessage', send(), bearer(await good()));
    const data = (outcome.result as { task: { artifacts: Array<{ parts: Array<{ data: Json }> }> } }).task.artifacts[0]
      .parts[0].data;
    expect(data.principal).toBe(`bearer:${idp.issuer}|alice`);
  });

  it('#2 a garbage token: 401 with error="invalid_token"', async () => {
    const outcome = await call(target, binding, 'ListTasks', {}, bearer('not.a.jwt'));
    expect(outcome.status).toBe('UNAUTHENTICATED');
    expect(outcome.wwwAuthenticate).toEqual(['Bearer realm="a2a", error="invalid_token"']);
  });

  it('#3 expired 120 s ago is refused; 10 s ago passes (30 s skew)', async () => {
    expect(await status(bearer(await idp.token({ sub: 'alice', aud: AUDIENCE }, { expiresIn: -120 })))).toBe(
      'UNAUTHENTICATED',
    );
    expect(await status(bearer(await idp.token({ sub: 'alice', aud: AUDIENCE }, { expiresIn: -10 })))).toBe('OK');
  });

  it('#4 nbf two minutes ahead is refused', async () => {
    expect(await status(bearer(await idp.token({ sub: 'alice', aud: AUDIENCE }, { notBefore: 120 })))).toBe(
      'UNAUTHENTICATED',
    );
  });

  it('#5 #6 another audience or another issuer (validly signed) is refused', async () => {
    expect(await status(bearer(await idp.token({ sub: 'alice', aud: 'another-agent' })))).toBe('UNAUTHENTICATED');
    expect(await status(bearer(await idp.token({ sub: 'alice', aud: AUDIENCE, iss: 'https://evil.example' })))).toBe(
      'UNAUTHENTICATED',
    );
  });

  it('#7 #8 alg:none, and HS256 keyed with the RSA public key, are refused', async () => {
    expect(await status(bearer(idp.unsignedToken({ sub: 'alice', aud: AUDIENCE })))).toBe('UNAUTHENTICATED');
    expect(await status(bearer(await idp.hs256WithPublicKey({ sub: 'alice', aud: AUDIENCE })))).toBe('UNAUTHENTICATED');
  });

  it('#11 a 12 KiB token is refused (401; 16 on gRPC)', async () => {
    expect(await status(bearer(await idp.oversizedToken(12 * 1024)))).toBe('UNAUTHENTICATED');
  });
});

/** A probe app of its own for `security`, closed after the describe block that asks for it. */
function probeWith(security: () => A2aSecurityOptions): () => SecurityTarget {
  let own: GrpcProbeApp;
  let ownTarget: SecurityTarget;
  beforeAll(async () => {
    own = await startGrpcProbeApp({ a2a: { security: security() } });
    ownTarget = { httpUrl: own.httpUrl, grpc: new GrpcJsonClient(own.grpcAddress) };
  });
  afterAll(async () => {
    ownTarget?.grpc.close();
    await own?.app.close();
  });
  return () => ownTarget;
}

const principalOf = (outcome: { result?: Json }) =>
  (outcome.result as { task: { artifacts: Array<{ parts: Array<{ data: Json }> }> } }).task.artifacts[0].parts[0].data
    .principal;

describe("oauth2Scheme: a client-credentials token whose client_id is a user's sub", () => {
  const flows = { clientCredentials: { tokenUrl: 'https://idp.test/token', scopes: {} } };
  const targetOf = probeWith(() => ({
    schemes: {
      oauth2: oauth2Scheme({
        flows,
        jwt: { jwksUrl: idp.jwksUrl, issuer: idp.issuer, audience: AUDIENCE, allowInsecureHttp: ['127.0.0.1'] },
      }),
    },
  }));

  it.each(BINDINGS)('%s: is another owner, client:<client_id>', async (binding) => {
    const user = bearer(await idp.token({ sub: 'svc-1', aud: AUDIENCE }));
    const client = bearer(await idp.token({ sub: undefined, client_id: 'svc-1', aud: AUDIENCE }));
    const usersTask = await call(targetOf(), binding, 'SendMessage', send(), user);
    expect(principalOf(usersTask)).toBe(`oauth2:${idp.issuer}|svc-1`);
    const clientsTask = await call(targetOf(), binding, 'SendMessage', send(), client);
    expect(principalOf(clientsTask)).toBe(`oauth2:${idp.issuer}|client:svc-1`);
    const id = (usersTask.result as { task: { id: string } }).task.id;
    expect((await call(targetOf(), binding, 'GetTask', { id }, client)).status).toBe('NOT_FOUND');
    expect((await call(targetOf(), binding, 'GetTask', { id }, user)).status).toBe('OK');
  });
});

describe('openIdConnectScheme whose audience is the client id: ID tokens are no access tokens', () => {
  const targetOf = probeWith(() => ({
    schemes: {
      oidc: openIdConnectScheme({
        openIdConnectUrl: idp.discoveryUrl,
        audience: 'web-client',
        allowInsecureHttp: ['127.0.0.1'],
      }),
    },
  }));

  it.each(BINDINGS)('%s: refuses an ID token (nonce, at_hash) with 401, serves an access token', async (binding) => {
    const idToken = bearer(
      await idp.token({
        aud: 'web-client',
        azp: 'web-client',
        nonce: 'n-0S6_WzA2Mj',
        at_hash: 'HK6E_P6Dh8Y93mRNtsDB1Q',
      }),
    );
    const refused = await call(targetOf(), binding, 'SendMessage', send(), idToken);
    expect(refused.status).toBe('UNAUTHENTICATED');
    expect(refused.wwwAuthenticate).toEqual(['Bearer realm="a2a", error="invalid_token"']);
    expect(
      (await call(targetOf(), binding, 'SendMessage', send(), bearer(await idp.token({ aud: 'web-client' })))).status,
    ).toBe('OK');
  });
});

describe('#11 a 20 KiB token', () => {
  it("is refused by node's header limit on HTTP (431) before any parsing", async () => {
    const response = await fetch(`${probe.httpUrl}/a2a/rest/tasks`, {
      headers: { 'a2a-version': '1.0', ...bearer(await idp.oversizedToken(20 * 1024)) },
    });
    expect(response.status).toBe(431);
  });

  it('is UNAUTHENTICATED on gRPC (HTTP/2 allows the header; our cap refuses the token)', async () => {
    expect((await call(target, 'GRPC', 'ListTasks', {}, bearer(await idp.oversizedToken(20 * 1024)))).status).toBe(
      'UNAUTHENTICATED',
    );
  });
});

describe('#9 key rotation', () => {
  it('refuses a token of an unknown kid, then serves it once the JWKS has it and jose may refetch (30 s cooldown)', async () => {
    expect((await call(target, 'JSONRPC', 'ListTasks', {}, bearer(await good()))).status).toBe('OK');
    await idp.rotate();
    const rotated = bearer(await good());
    expect((await call(target, 'JSONRPC', 'ListTasks', {}, rotated)).status).toBe('UNAUTHENTICATED');
    // Only Date moves: sockets and jose's fetch keep real timers.
    jest.useFakeTimers({
      now: Date.now() + 31_000,
      doNotFake: [
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
      ],
    });
    for (const binding of BINDINGS)
      expect((await call(target, binding, 'ListTasks', {}, bearer(await good()))).status).toBe('OK');
  });
});

describe('an unreachable identity provider', () => {
  it('answers 503 / UNAVAILABLE with Retry-After for a token whose key must be fetched, never a pass and never 401', async () => {
    await idp.rotate();
    jest.useFakeTimers({
      now: Date.now() + 120_000,
      doNotFake: [
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
      ],
    });
    const token = bearer(await good());
    idp.down();
    try {
      for (const binding of BINDINGS) {
        const outcome = await call(target, binding, 'ListTasks', {}, token);
        expect(outcome.status).toBe('UNAVAILABLE');
        expect(outcome.retryAfter).toBe('5');
      }
    } finally {
      idp.up();
    }
  });
});
