import { jest } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { isIP } from 'node:net';
import {
  A2aAddressRefusedError,
  A2aClientOptionsError,
  A2aCredentialsRefusedError,
  A2aClientMessages,
  A2aTransportError,
  type AgentCard,
  type Task,
} from '../../../libs/a2a/src/client.js';
import { cardSigningKeyFromPem, type CardSigningKey } from '../../../libs/a2a/src/index.js';
import { IdentityProvider } from '../../fixtures/identity-provider.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { startCardHost, type CardHost } from './fixtures/card-host.js';
import { clientFor } from './fixtures/client-targets.js';
import { startFlakyHttpProxy, type FlakyHttpProxy } from './fixtures/flaky-http.proxy.js';
import {
  OAUTH_CLIENT,
  startOAuthAgent,
  startTokenEndpoint,
  type RunningOAuthAgent,
  type TokenEndpoint,
} from './fixtures/oauth-agent.server.js';

/**
 * Where the client's credentials go: only to the origin the card came from and the origins `allowedOrigins` names;
 * the OAuth2 secret only to a configured token URL (or a verified card's); API keys only where the options place
 * them, and never shown in messages or `.url` when they travel in the query. The card is the attacker's here: it
 * lives on one server (origin A) and points elsewhere.
 */
let agent: RunningAgent;
let host: CardHost;
/** Origin B: a second local server in front of the agent that records every request it gets. */
let elsewhere: FlakyHttpProxy;

beforeAll(async () => {
  [agent, host] = await Promise.all([
    startConformanceAgent({ withGrpc: true, push: false, security: { apiKeys: { alice: 'key-a' } } }),
    startCardHost(),
  ]);
  elsewhere = await startFlakyHttpProxy(agent.url);
});
afterAll(() => Promise.all([agent?.close(), host?.close(), elsewhere?.close()]));

async function agentCard(): Promise<AgentCard> {
  return (await (await fetch(`${agent.url}/.well-known/agent-card.json`)).json()) as AgentCard;
}

/** The agent's card with every HTTP interface moved to `origin`. */
async function cardPointingAt(origin: string): Promise<AgentCard> {
  const card = await agentCard();
  const http = card.supportedInterfaces.filter((entry) => entry.protocolBinding !== 'GRPC');
  return {
    ...card,
    supportedInterfaces: http.map((entry) => ({ ...entry, url: entry.url.split(agent.url).join(origin) })),
  };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
}

describe.each(['JSONRPC', 'HTTP+JSON'] as const)(
  'a card from origin A whose interface is at origin B, over %s',
  (binding) => {
    beforeEach(async () => host.serve(await cardPointingAt(elsewhere.url)));

    it('gets no credential at B: the call is refused before anything is sent, naming credentials.allowedOrigins', async () => {
      const before = elsewhere.requests.length;
      const client = clientFor(host.url, binding, { credentials: { apiKey: 'key-a' } });
      const error = await failure(client.send('echo leak'));
      await client.close();
      expect(error).toBeInstanceOf(A2aCredentialsRefusedError);
      expect(error).toMatchObject({
        kind: 'CredentialsRefused',
        message: expect.stringContaining('credentials.allowedOrigins'),
      });
      expect((error as Error).message).toContain(elsewhere.url);
      expect(elsewhere.requests.slice(before)).toEqual([]);
    });

    it('with credentials.allowedOrigins naming B, the key goes there and the call works', async () => {
      const before = elsewhere.requests.length;
      const client = clientFor(host.url, binding, {
        credentials: { apiKey: 'key-a', allowedOrigins: [elsewhere.url] },
      });
      const task = (await client.send('echo allowed')) as Task;
      await client.close();
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      const seen = elsewhere.requests.slice(before);
      expect(seen.map((request) => request.operation)).toEqual(['SendMessage']);
      expect(seen[0].headers['x-api-key']).toBe('key-a');
    });

    it('without credentials, the call to B goes through as before (nothing to leak)', async () => {
      const client = clientFor(host.url, binding);
      await expect(client.listTasks()).rejects.toMatchObject({ kind: 'Unauthenticated' });
      await client.close();
    });
  },
);

describe('the gRPC interface of a card', () => {
  it('is an origin of its own (host and port): its credentials need credentials.allowedOrigins too', async () => {
    const refused = clientFor(agent.url, 'GRPC', { credentials: { apiKey: 'key-a' } });
    await expect(refused.send('echo grpc')).rejects.toBeInstanceOf(A2aCredentialsRefusedError);
    await refused.close();
    const allowed = clientFor(agent.url, 'GRPC', {
      credentials: { apiKey: 'key-a', allowedOrigins: [`http://${agent.grpcAddress}`] },
    });
    expect(await allowed.send('echo grpc')).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
    await allowed.close();
  });
});

describe('credentials.allowedOrigins', () => {
  it.each([
    ['agent.example'],
    ['https://agent.example/a2a'],
    ['ftp://agent.example'],
    ['https://agent.example?x=1'],
    ['https://user:pw@agent.example'],
  ])('refuses %s: not an http(s) origin', (entry) => {
    expect(() => clientFor(host.url, 'JSONRPC', { credentials: { allowedOrigins: [entry] } })).toThrow(
      A2aClientOptionsError,
    );
  });

  it('takes origins, with or without a trailing slash', () => {
    expect(() =>
      clientFor(host.url, 'JSONRPC', {
        credentials: { allowedOrigins: ['https://agent.example/', 'http://127.0.0.1:8080'] },
      }),
    ).not.toThrow();
  });
});

describe('an API key', () => {
  let moved: FlakyHttpProxy;
  beforeAll(async () => {
    // The card, served from the proxy's own origin, asks for the key in the query.
    moved = await startFlakyHttpProxy(agent.url, (card: AgentCard) => ({
      ...card,
      securitySchemes: {
        ...card.securitySchemes,
        apiKey: { apiKeySecurityScheme: { location: 'query', name: 'X-API-Key' } },
      },
    }));
  });
  afterAll(() => moved?.close());

  it.each(['JSONRPC', 'HTTP+JSON'] as const)(
    'configured as a header stays one when the card says query (%s): refused, naming credentials.apiKeyPlacement',
    async (binding) => {
      const before = moved.requests.length;
      const client = clientFor(moved.url, binding, { credentials: { apiKey: 'key-a' } });
      const error = await failure(client.send('echo moved'));
      await client.close();
      expect(error).toBeInstanceOf(A2aCredentialsRefusedError);
      expect((error as Error).message).toBe(
        A2aClientMessages.apiKeyPlacementRefused('apiKey', 'query "X-API-Key"', 'header'),
      );
      const calls = moved.requests.slice(before).filter((request) => request.operation !== 'card');
      expect(calls).toEqual([]);
      expect(moved.requests.some((request) => request.path.includes('key-a'))).toBe(false);
    },
  );

  it('in the query (as the options place it) is shown as *** in the message and .url of an error', async () => {
    const client = clientFor(moved.url, 'HTTP+JSON', {
      credentials: { apiKey: 'key-a', apiKeyPlacement: { location: 'query' } },
      retry: false,
    });
    moved.once('ListTasks', { kind: 'drop-response' });
    const error = (await failure(client.listTasks())) as A2aTransportError;
    await client.close();
    expect(error).toBeInstanceOf(A2aTransportError);
    expect(error.kind).toBe('Network');
    // The key did travel in the query, as configured.
    expect(moved.requests.at(-1)?.path).toContain('X-API-Key=key-a');
    expect(error.message).toContain('X-API-Key=***');
    expect(error.url).toContain('X-API-Key=***');
    expect(`${error.message} ${error.url}`).not.toContain('key-a');
  });

  it("in the query is shown as *** in the .url of the SSRF guard's refusal too", async () => {
    const card = await cardPointingAt('http://10.0.0.1');
    host.serve({
      ...card,
      securitySchemes: { apiKey: { apiKeySecurityScheme: { location: 'query', name: 'X-API-Key' } } },
    });
    const client = clientFor(host.url, 'HTTP+JSON', {
      credentials: { apiKey: 'key-a', apiKeyPlacement: { location: 'query' }, allowedOrigins: ['http://10.0.0.1'] },
      retry: false,
    });
    const error = (await failure(client.listTasks())) as A2aAddressRefusedError;
    await client.close();
    expect(error).toBeInstanceOf(A2aAddressRefusedError);
    expect(error.url).toContain('X-API-Key=***');
    expect(`${error.message} ${error.url}`).not.toContain('key-a');
  });
});

describe('the OAuth2 token URL', () => {
  let idp: IdentityProvider;
  let tokens: TokenEndpoint;
  let plain: RunningOAuthAgent;
  let signed: RunningOAuthAgent;
  let signingKey: CardSigningKey;
  beforeAll(async () => {
    idp = await IdentityProvider.start();
    tokens = await startTokenEndpoint(idp);
    signingKey = await cardSigningKeyFromPem(
      generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    );
    [plain, signed] = await Promise.all([
      startOAuthAgent(idp, tokens.url),
      startOAuthAgent(idp, tokens.url, { cardSigningKey: signingKey }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([plain?.close(), signed?.close(), tokens?.close()]);
    await idp?.stop();
  });

  it('of an unsigned card is not used: refused before the secret is sent, naming credentials.oauth2.tokenUrl', async () => {
    const before = tokens.requests.length;
    const client = clientFor(plain.url, 'JSONRPC', { credentials: { oauth2: OAUTH_CLIENT } });
    const error = await failure(client.send('echo oauth'));
    await client.close();
    expect(error).toBeInstanceOf(A2aCredentialsRefusedError);
    expect(error).toMatchObject({ message: A2aClientMessages.untrustedTokenUrl('oauth', tokens.url) });
    expect((error as Error).message).toContain('credentials.oauth2.tokenUrl');
    expect(tokens.requests.length).toBe(before);
  });

  it('of a card signed with pinned keys is used', async () => {
    const before = tokens.requests.length;
    const client = clientFor(signed.url, 'JSONRPC', {
      credentials: { oauth2: OAUTH_CLIENT },
      cardVerification: { keys: [{ ...signingKey.publicJwk, kid: signingKey.kid, alg: signingKey.alg }] },
    });
    expect(await client.send('echo signed')).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
    await client.close();
    expect(tokens.requests.length).toBe(before + 1);
  });

  it('of the options is used, whatever the card says', async () => {
    const before = tokens.requests.length;
    const client = clientFor(plain.url, 'HTTP+JSON', {
      credentials: { oauth2: { ...OAUTH_CLIENT, tokenUrl: tokens.url } },
    });
    expect(await client.send('echo configured')).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
    await client.close();
    expect(tokens.requests.length).toBe(before + 1);
  });
});

describe('a custom fetch', () => {
  it('connects to the address the guard checked: a resolver that answers differently the second time is asked once', async () => {
    host.serve(await agentCard());
    const port = new URL(host.url).port;
    const answers = ['127.0.0.1', '10.0.0.1'];
    const resolveHost = jest.fn(async () => [{ address: answers.shift() ?? '10.0.0.1', family: 4 }]);
    const given: Array<{ url: string; host: string | undefined }> = [];
    // A fetch with its own resolution (here the same resolver): were it handed the name, DNS would rebind it.
    const ownFetch = jest.fn<typeof fetch>(async (input, init) => {
      const url = new URL(String(input));
      given.push({ url: url.href, host: (init?.headers as Record<string, string> | undefined)?.host });
      if (isIP(url.hostname) === 0) url.hostname = (await resolveHost())[0].address;
      if (url.hostname !== '127.0.0.1') throw new Error(`connected to ${url.hostname}`);
      return fetch(url, init);
    });
    const client = clientFor(`http://agent.test:${port}/`, 'JSONRPC', {
      network: { allowHttp: true, allowedCidrs: ['127.0.0.1/32'], resolveHost },
      fetch: ownFetch,
      retry: false,
    });
    expect((await client.card()).name).toBe('A2A conformance agent');
    await client.close();
    expect(resolveHost).toHaveBeenCalledTimes(1);
    expect(given).toEqual([
      { url: `http://127.0.0.1:${port}/.well-known/agent-card.json`, host: `agent.test:${port}` },
    ]);
  });
});
