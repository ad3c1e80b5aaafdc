import { generateKeyPairSync } from 'node:crypto';
import {
  A2aAgentClient,
  A2aCardError,
  A2aCardVerificationError,
  type AgentCard,
} from '../../../libs/a2a/src/client.js';
import { cardSigningKeyFromPem, type CardSigningKey } from '../../../libs/a2a/src/index.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { startCardHost, type CardHost } from './fixtures/card-host.js';
import { clientFor, LOOPBACK } from './fixtures/client-targets.js';
import { startSdkAgent, type RunningSdkAgent } from './fixtures/sdk-agent.server.js';

/**
 * Card resolution (spec §8.2, §8.6): cached for its max-age and revalidated with If-None-Match (a 304 keeps it), at
 * most 1 MiB, checked against the AgentCard schema, and verified against pinned keys when the options pin any.
 */
let ours: RunningAgent;
let signed: RunningAgent;
let signingKey: CardSigningKey;
let sdk: RunningSdkAgent;
let host: CardHost;

beforeAll(async () => {
  signingKey = await cardSigningKeyFromPem(
    generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
  );
  [ours, signed, sdk, host] = await Promise.all([
    startConformanceAgent({ withGrpc: true, push: false }),
    startConformanceAgent({ push: false, cardSigningKey: signingKey }),
    startSdkAgent(),
    startCardHost(),
  ]);
});
afterAll(() => Promise.all([ours?.close(), signed?.close(), sdk?.close(), host?.close()]));

const pinned = () => ({ keys: [{ ...signingKey.publicJwk, kid: signingKey.kid, alg: signingKey.alg }] });

async function cardOf(origin: string): Promise<AgentCard> {
  return (await (await fetch(`${origin}/.well-known/agent-card.json`)).json()) as AgentCard;
}

describe.each(['nestjs-a2a', '@a2a-js/sdk'] as const)('caching against %s', (server) => {
  const origin = () => (server === 'nestjs-a2a' ? ours.url : sdk.url);

  it('fetches the card once, serves it from cache while fresh, and revalidates it with If-None-Match: a 304', async () => {
    const client = clientFor(origin(), 'JSONRPC');
    const first = await client.resolveCard();
    expect(first).toMatchObject({ source: 'network', url: `${origin()}/.well-known/agent-card.json` });
    expect(first.etag).toEqual(expect.any(String));
    expect(first.expiresAt).toBeGreaterThan(Date.now());
    expect((await client.resolveCard()).source).toBe('cache');
    const second = await client.resolveCard({ refresh: true });
    expect(second.source).toBe('not-modified');
    expect(second.card).toEqual(first.card);
    await client.close();
  });
});

describe('caching by Cache-Control', () => {
  it('no-cache: every call revalidates (If-None-Match, 304), and the calls still go through', async () => {
    host.serve(await cardOf(ours.url), { 'cache-control': 'no-cache' });
    const client = clientFor(host.url, 'HTTP+JSON');
    await client.send('echo one');
    await client.send('echo two');
    await client.close();
    const requests = host.requests.slice(-2);
    expect(requests[0]['if-none-match']).toBeUndefined();
    expect(requests[1]['if-none-match']).toEqual(expect.any(String));
  });

  it('keeps the card it has when a refresh cannot reach the agent (source: stale)', async () => {
    host.serve(await cardOf(ours.url), { 'cache-control': 'max-age=0' });
    const client = clientFor(host.url, 'JSONRPC', { retry: false });
    await client.resolveCard();
    host.serve({ raw: '' }, {}, 503);
    expect((await client.resolveCard({ refresh: true })).source).toBe('stale');
    await client.close();
  });
});

describe('size and shape', () => {
  const big = (card: AgentCard) => JSON.stringify({ ...card, description: 'x'.repeat(1024 * 1024 + 10) });

  it.each([
    ['with a Content-Length', false],
    ['chunked, counted as it arrives', true],
  ])('a card over 1 MiB is refused (%s)', async (_, chunked) => {
    host.serve({ raw: big(await cardOf(ours.url)), chunked });
    const client = clientFor(host.url, 'JSONRPC');
    const error = (await client.card().catch((caught: unknown) => caught)) as A2aCardError;
    await client.close();
    expect(error).toBeInstanceOf(A2aCardError);
    expect(error.kind).toBe('InvalidCard');
    expect(error.message).toContain('larger than 1048576 bytes');
  });

  it('limits.maxCardBytes sets the bound', async () => {
    host.serve(await cardOf(ours.url));
    const client = clientFor(host.url, 'JSONRPC', { limits: { maxCardBytes: 200 } });
    await expect(client.card()).rejects.toMatchObject({ kind: 'InvalidCard' });
    await client.close();
  });

  it.each([
    ['no capabilities', (card: any) => ({ ...card, capabilities: undefined }), 'capabilities is required'],
    ['no interface', (card: any) => ({ ...card, supportedInterfaces: [] }), 'at least one interface'],
    [
      'an interface without url',
      (card: any) => ({ ...card, supportedInterfaces: [{ protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] }),
      'supportedInterfaces[0].url is required',
    ],
    ['a name that is not a string', (card: any) => ({ ...card, name: 42 }), 'name must be a string'],
    [
      'two members of a oneof',
      (card: any) => ({
        ...card,
        securitySchemes: { s: { mtlsSecurityScheme: {}, httpAuthSecurityScheme: { scheme: 'Bearer' } } },
      }),
      'more than one scheme',
    ],
  ])('a card with %s is an InvalidCard naming the problem', async (_, edit, problem) => {
    host.serve(edit(await cardOf(ours.url)));
    const client = clientFor(host.url, 'JSONRPC');
    const error = (await client.card().catch((caught: unknown) => caught)) as A2aCardError;
    await client.close();
    expect(error).toMatchObject({ kind: 'InvalidCard' });
    expect(error.message).toContain(problem);
  });

  it('a card that is not JSON, or not found, is refused with a typed error', async () => {
    host.serve({ raw: '<html>' });
    const client = clientFor(host.url, 'JSONRPC', { retry: false });
    await expect(client.card()).rejects.toMatchObject({ kind: 'InvalidCard' });
    host.serve({ raw: '{}' }, {}, 404);
    await expect(client.card({ refresh: true })).rejects.toMatchObject({ kind: 'CardUnavailable' });
    await client.close();
  });

  it('a card offering no binding this client speaks is NoCompatibleInterface', async () => {
    host.serve({
      ...(await cardOf(ours.url)),
      supportedInterfaces: [{ url: 'http://127.0.0.1:1/', protocolBinding: 'JSONRPC', protocolVersion: '0.3' }],
    });
    const client = clientFor(host.url, ['JSONRPC', 'HTTP+JSON', 'GRPC']);
    await expect(client.send('echo x')).rejects.toMatchObject({ kind: 'NoCompatibleInterface' });
    await client.close();
  });
});

describe('signatures against pinned keys', () => {
  it('a signed card that verifies is used, rebuilt from its signed payload', async () => {
    const client = clientFor(signed.url, 'JSONRPC', { cardVerification: pinned() });
    const resolved = await client.resolveCard();
    expect(resolved.verification).toEqual({ kid: signingKey.kid, coverage: 'strict' });
    expect(resolved.card.signatures).toBeUndefined();
    expect(await client.send('echo signed')).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
    await client.close();
  });

  it('an unsigned card is refused when keys are pinned', async () => {
    const client = clientFor(ours.url, 'JSONRPC', { cardVerification: pinned() });
    const error = await client.send('echo x').catch((caught: unknown) => caught);
    await client.close();
    expect(error).toBeInstanceOf(A2aCardVerificationError);
    expect(error).toMatchObject({
      kind: 'CardVerificationFailed',
      message: expect.stringContaining('carries no signature'),
    });
  });

  it('a signed card edited on the way (one field) is refused', async () => {
    host.serve({ ...(await cardOf(signed.url)), description: 'Edited by a man in the middle' });
    const client = clientFor(host.url, 'JSONRPC', { cardVerification: pinned() });
    await expect(client.card()).rejects.toBeInstanceOf(A2aCardVerificationError);
    await client.close();
  });

  it('a card signed by another key than the pinned one is refused', async () => {
    const other = await cardSigningKeyFromPem(
      generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    );
    const client = clientFor(signed.url, 'JSONRPC', {
      cardVerification: { keys: [{ ...other.publicJwk, kid: signingKey.kid }] },
    });
    await expect(client.card()).rejects.toMatchObject({ kind: 'CardVerificationFailed' });
    await client.close();
  });

  it("the agent's JWK Set URL may be pinned instead of keys", async () => {
    const client = new A2aAgentClient({
      cardUrl: signed.url,
      network: LOOPBACK,
      cardVerification: { jwksUrl: `${signed.url}/.well-known/jwks.json` },
    });
    expect((await client.resolveCard()).verification?.kid).toBe(signingKey.kid);
    await client.close();
  });
});
