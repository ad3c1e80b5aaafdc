import { jest } from '@jest/globals';
import { lastValueFrom, toArray } from 'rxjs';
import { A2aProtocolError, type Task } from '../../../libs/a2a/src/client.js';
import { IdentityProvider } from '../../fixtures/identity-provider.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { CLIENT_BINDINGS, clientFor, within } from './fixtures/client-targets.js';
import {
  OAUTH_CLIENT,
  startOAuthAgent,
  startTokenEndpoint,
  type RunningOAuthAgent,
  type TokenEndpoint,
} from './fixtures/oauth-agent.server.js';

/**
 * Credentials chosen from the card's schemes and requirements (spec §7): API keys where the scheme says, bearer
 * tokens (static or from a provider, asked again after a 401), OAuth2 client credentials from the card's token URL
 * (cached until expiry), against our conformance agent with `security: { apiKeys, jwt }` and an OAuth2-only agent.
 */
const AUDIENCE = 'conformance-agent';
let idp: IdentityProvider;
let agent: RunningAgent;

beforeAll(async () => {
  idp = await IdentityProvider.start();
  agent = await startConformanceAgent({
    withGrpc: true,
    push: false,
    security: {
      apiKeys: { alice: 'key-a', bob: 'key-b' },
      jwt: { jwksUrl: idp.jwksUrl, issuer: idp.issuer, audience: AUDIENCE },
    },
  });
});
afterAll(async () => {
  await agent?.close();
  await idp?.stop();
});

/** The gRPC interface's origin (plaintext on loopback): a port of its own, so credentials go there only when named. */
const grpcOrigin = () => [`http://${agent.grpcAddress}`];

describe.each(CLIENT_BINDINGS)('the conformance agent over %s', (binding) => {
  it("an API key goes where its scheme says; another key's owner cannot see the task", async () => {
    const alice = clientFor(agent.url, binding, { credentials: { apiKey: 'key-a', allowedOrigins: grpcOrigin() } });
    const bob = clientFor(agent.url, binding, {
      credentials: { apiKey: { apiKey: 'key-b' }, allowedOrigins: grpcOrigin() },
    });
    const task = (await alice.send('echo mine')) as Task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await alice.getTask(task.id)).id).toBe(task.id);
    await expect(bob.getTask(task.id)).rejects.toMatchObject({ kind: 'TaskNotFound' });
    await Promise.all([alice.close(), bob.close()]);
  });

  it('a bearer token from a provider, on unary calls and streams', async () => {
    const provider = jest.fn(() => idp.token({ sub: 'carol', aud: AUDIENCE, scope: 'a2a:write' }));
    const client = clientFor(agent.url, binding, { credentials: { bearer: provider, allowedOrigins: grpcOrigin() } });
    const task = (await client.send('echo bearer')) as Task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const events = await within(lastValueFrom(client.stream('stream 2').pipe(toArray())), 10_000);
    expect(events.length).toBeGreaterThanOrEqual(3);
    expect(provider.mock.calls.length).toBeGreaterThanOrEqual(2);
    await client.close();
  });

  it('a 401 asks the provider again once, and the call goes through', async () => {
    const good = await idp.token({ sub: 'carol', aud: AUDIENCE, scope: 'a2a:write' });
    const provider = jest
      .fn<() => Promise<string>>()
      .mockResolvedValueOnce(await idp.token({ sub: 'carol', aud: AUDIENCE, scope: 'a2a:write' }, { expiresIn: -120 }))
      .mockResolvedValue(good);
    const client = clientFor(agent.url, binding, { credentials: { bearer: provider, allowedOrigins: grpcOrigin() } });
    expect(await client.send('echo refreshed')).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
    expect(provider).toHaveBeenCalledTimes(2);
    await client.close();
  });

  it('no credential: Unauthenticated, with the challenges', async () => {
    const client = clientFor(agent.url, binding);
    const error = (await client.send('echo anon').catch((caught: unknown) => caught)) as A2aProtocolError;
    await client.close();
    expect(error).toBeInstanceOf(A2aProtocolError);
    expect(error.kind).toBe('Unauthenticated');
    if (binding !== 'GRPC') expect(error.challenges.join(',')).toContain('Bearer');
  });

  it('a wrong API key: Unauthenticated; a token without a2a:write may read but not write: PermissionDenied', async () => {
    const wrong = clientFor(agent.url, binding, { credentials: { apiKey: 'nope', allowedOrigins: grpcOrigin() } });
    await expect(wrong.listTasks()).rejects.toMatchObject({ kind: 'Unauthenticated' });
    const reader = clientFor(agent.url, binding, {
      credentials: {
        bearer: await idp.token({ sub: 'dave', aud: AUDIENCE, scope: 'a2a:read' }),
        allowedOrigins: grpcOrigin(),
      },
    });
    expect((await reader.listTasks()).tasks).toEqual([]);
    await expect(reader.send('echo no')).rejects.toMatchObject({ kind: 'PermissionDenied' });
    await Promise.all([wrong.close(), reader.close()]);
  });

  it('getExtendedCard with a credential: the card plus the extended skill', async () => {
    const client = clientFor(agent.url, binding, { credentials: { apiKey: 'key-b', allowedOrigins: grpcOrigin() } });
    const card = await client.getExtendedCard();
    expect(card.skills.map((skill) => skill.id)).toContain('conformance-extended');
    await client.close();
  });
});

describe('OAuth2 client credentials', () => {
  let tokens: TokenEndpoint;
  let oauthAgent: RunningOAuthAgent;
  beforeAll(async () => {
    tokens = await startTokenEndpoint(idp);
    oauthAgent = await startOAuthAgent(idp, tokens.url);
  });
  afterAll(async () => {
    await oauthAgent?.close();
    await tokens?.close();
  });

  it.each(CLIENT_BINDINGS)(
    "over %s: a token from the configured token URL, with the requirement's scopes, cached across calls",
    async (binding) => {
      const before = tokens.requests.length;
      const client = clientFor(oauthAgent.url, binding, {
        credentials: {
          oauth2: { ...OAUTH_CLIENT, tokenUrl: tokens.url },
          allowedOrigins: [`http://${oauthAgent.grpcAddress}`],
        },
      });
      const task = (await client.send('echo oauth')) as Task;
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect((await client.getTask(task.id)).id).toBe(task.id);
      await client.close();
      const used = tokens.requests.slice(before);
      expect(used).toHaveLength(1);
      expect(used[0].get('scope')).toBe('tasks:write');
    },
  );

  it('a token the agent refuses (401) is dropped and a new one fetched, once', async () => {
    const client = clientFor(oauthAgent.url, 'JSONRPC', {
      credentials: {
        oauth2: { ...OAUTH_CLIENT, tokenUrl: tokens.url },
        allowedOrigins: [`http://${oauthAgent.grpcAddress}`],
      },
    });
    const before = tokens.requests.length;
    tokens.spoilNextToken();
    expect(await client.send('echo after')).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
    expect(tokens.requests.length).toBe(before + 2);
    await client.close();
  });

  it("a client the token endpoint refuses: a Credentials error naming the endpoint's answer", async () => {
    const client = clientFor(oauthAgent.url, 'HTTP+JSON', {
      credentials: { oauth2: { ...OAUTH_CLIENT, clientSecret: 'wrong', tokenUrl: tokens.url } },
    });
    const error = await client.send('echo no').catch((caught: unknown) => caught);
    await client.close();
    expect(error).toMatchObject({ kind: 'Credentials', message: expect.stringContaining('HTTP 401: invalid_client') });
  });
});
