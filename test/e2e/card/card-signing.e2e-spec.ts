import 'reflect-metadata';
import { jest } from '@jest/globals';
import { generateAgentCardSignature, verifyAgentCardSignature } from '@a2a-js/sdk';
import { Injectable, Module, UnauthorizedException, type CanActivate, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import {
  A2aModule,
  A2aSkillHandler,
  AgentCardService,
  AgentSkill,
  cardSigningKeyFromPem,
  complete,
  verifyAgentCard,
  type AgentCard,
  type CardSigningKey,
  type SkillContext,
} from '../../../libs/a2a/src/index.js';
import { startConformanceAgent } from '../../fixtures/conformance-agent.server.js';
import { createTestApplication, startTestApp, TEST_HTTP_ADAPTER } from '../../fixtures/test-app.js';

@AgentSkill({ id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['echo'] })
class EchoSkill extends A2aSkillHandler {
  handle(context: SkillContext) {
    return [complete(context.text)];
  }
}

const BASE_URL = 'https://agent.example.com';
const privatePem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;

async function getJson<T>(url: string): Promise<{ status: number; headers: Headers; body: T }> {
  const res = await fetch(url);
  return {
    status: res.status,
    headers: res.headers,
    body: res.status === 200 ? ((await res.json()) as T) : (undefined as T),
  };
}

/** @a2a-js/sdk's verifier, with keys looked up by kid in a JWK Set we fetched (never at the card's jku). */
async function sdkVerify(card: AgentCard, jwks: JSONWebKeySet): Promise<void> {
  // It logs every entry that does not verify.
  const debug = jest.spyOn(console, 'debug').mockImplementation(() => undefined);
  try {
    await verifyAgentCardSignature(async (kid) => {
      const jwk = jwks.keys.find((key) => key.kid === kid);
      if (!jwk) throw new Error(`no key ${kid}`);
      return jwk;
    })(card as never);
  } finally {
    debug.mockRestore();
  }
}

function unsigned(card: AgentCard): AgentCard {
  const copy = structuredClone(card);
  delete copy.signatures;
  return copy;
}

describe(`signed AgentCard over HTTP (${TEST_HTTP_ADAPTER})`, () => {
  let app: INestApplication;
  let url: string;
  let key: CardSigningKey;

  beforeAll(async () => {
    key = await cardSigningKeyFromPem(privatePem);
    @Module({
      imports: [
        A2aModule.forRoot({
          card: { name: 'Signed agent', description: 'Echoes text' },
          baseUrl: BASE_URL,
          cardSigning: { keys: [key] },
        }),
      ],
      providers: [EchoSkill],
    })
    class SignedModule {}
    ({ app, url } = await startTestApp(SignedModule));
  });
  afterAll(() => app.close());

  it('serves the card with an EdDSA signature naming its key and the JWK Set', async () => {
    const { body: card } = await getJson<AgentCard>(`${url}/.well-known/agent-card.json`);
    expect(card.signatures).toHaveLength(1);
    expect(decodeProtectedHeader(card.signatures![0])).toEqual({
      alg: 'EdDSA',
      kid: key.kid,
      typ: 'JOSE',
      jku: `${BASE_URL}/.well-known/jwks.json`,
    });
  });

  it('serves the JWK Set: public members, use, alg, kid; cacheable for an hour', async () => {
    const { status, headers, body } = await getJson<JSONWebKeySet>(`${url}/.well-known/jwks.json`);
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('public, max-age=3600');
    expect(headers.get('content-type')).toMatch(/^application\/json/);
    expect(body).toEqual({
      keys: [{ kty: 'OKP', crv: 'Ed25519', x: key.publicJwk.x, use: 'sig', alg: 'EdDSA', kid: key.kid }],
    });
  });

  it('verifies with ours (trusted JWK Set URL, or its keys) and with @a2a-js/sdk', async () => {
    const { body: card } = await getJson<AgentCard>(`${url}/.well-known/agent-card.json`);
    const { body: jwks } = await getJson<JSONWebKeySet>(`${url}/.well-known/jwks.json`);
    expect(await verifyAgentCard(card, { jwksUrl: `${url}/.well-known/jwks.json` })).toEqual({
      valid: true,
      kid: key.kid,
      coverage: 'strict',
      card: unsigned(card),
    });
    expect((await verifyAgentCard(card, { keys: jwks })).valid).toBe(true);
    await expect(sdkVerify(card, jwks)).resolves.toBeUndefined();
  });

  it('a card signed by @a2a-js/sdk verifies with verifyAgentCard', async () => {
    const { body: card } = await getJson<AgentCard>(`${url}/.well-known/agent-card.json`);
    const { body: jwks } = await getJson<JSONWebKeySet>(`${url}/.well-known/jwks.json`);
    const bySdk = await generateAgentCardSignature(createPrivateKey(privatePem), {
      alg: 'EdDSA',
      kid: key.kid,
      typ: 'JOSE',
    })(unsigned(card) as never);
    expect(await verifyAgentCard(bySdk, { keys: jwks })).toMatchObject({
      valid: true,
      kid: key.kid,
      card: unsigned(card),
    });
  });

  it('one edited signed field: both verifiers reject the card', async () => {
    const { body: card } = await getJson<AgentCard>(`${url}/.well-known/agent-card.json`);
    const { body: jwks } = await getJson<JSONWebKeySet>(`${url}/.well-known/jwks.json`);
    const tampered = structuredClone(card);
    tampered.supportedInterfaces[0].url = 'https://evil.example.com/a2a/jsonrpc';
    expect(await verifyAgentCard(tampered, { keys: jwks })).toEqual({ valid: false });
    await expect(sdkVerify(tampered, jwks)).rejects.toThrow();
  });

  it('signed() signs any card, twice where the SDK payload leaves something out; both verifiers accept it', async () => {
    const { body: jwks } = await getJson<JSONWebKeySet>(`${url}/.well-known/jwks.json`);
    const cards = app.get(AgentCardService);
    const extended: AgentCard = {
      ...unsigned(cards.card),
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
      securityRequirements: [{ schemes: { bearer: {} } }],
    };
    const signed = await cards.signed(extended);
    expect(signed.signatures).toHaveLength(2);
    expect(await verifyAgentCard(signed, { keys: jwks })).toMatchObject({
      valid: true,
      coverage: 'strict',
      card: extended,
    });
    await expect(sdkVerify(signed, jwks)).resolves.toBeUndefined();
  });

  it('re-signs the card when a binding is advertised later, and serves it with a new ETag', async () => {
    const first = await fetch(`${url}/.well-known/agent-card.json`);
    const etag = first.headers.get('etag');
    app.get(AgentCardService).advertise({ url: 'agent.example.com:50051', protocolBinding: 'GRPC' });
    let card: AgentCard | undefined;
    for (
      let attempt = 0;
      attempt < 50 && !card?.supportedInterfaces.some((entry) => entry.protocolBinding === 'GRPC');
      attempt++
    ) {
      card = (await getJson<AgentCard>(`${url}/.well-known/agent-card.json`)).body;
      // Every card served while the new one is being signed carries valid signatures too.
      expect((await verifyAgentCard(card, { keys: [{ ...key.publicJwk, kid: key.kid }] })).valid).toBe(true);
    }
    expect(card!.supportedInterfaces.map((entry) => entry.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON', 'GRPC']);
    expect((await fetch(`${url}/.well-known/agent-card.json`)).headers.get('etag')).not.toBe(etag);
  });
});

/** The app's own API-key guard for everything it serves. */
@Injectable()
class DenyAllGuard implements CanActivate {
  canActivate(): boolean {
    throw new UnauthorizedException();
  }
}

describe('the JWK Set route', () => {
  it("sits at the origin root (or jwksPath), outside the global prefix and the app's guards", async () => {
    const key = await cardSigningKeyFromPem(privatePem);
    @Module({
      imports: [
        A2aModule.forRoot({
          card: { name: 'Prefixed', description: 'Lives under /api' },
          baseUrl: BASE_URL,
          cardSigning: { keys: [key], jwksPath: 'keys/card.json' },
        }),
      ],
      providers: [EchoSkill, { provide: APP_GUARD, useClass: DenyAllGuard }],
    })
    class PrefixedModule {}
    const moduleRef = await Test.createTestingModule({ imports: [PrefixedModule] }).compile();
    const app = createTestApplication(moduleRef);
    app.setGlobalPrefix('/api');
    await app.listen(0, '127.0.0.1');
    try {
      const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      const { status, body } = await getJson<JSONWebKeySet>(`${url}/keys/card.json`);
      expect(status).toBe(200);
      expect(body.keys.map((jwk) => jwk.kid)).toEqual([key.kid]);
      const { body: card } = await getJson<AgentCard>(`${url}/.well-known/agent-card.json`);
      expect(decodeProtectedHeader(card.signatures![0]).jku).toBe(`${BASE_URL}/keys/card.json`);
      expect((await fetch(`${url}/.well-known/jwks.json`)).status).not.toBe(200);
    } finally {
      await app.close();
    }
  });

  it('is not served, and the card is unsigned, without cardSigning', async () => {
    @Module({
      imports: [A2aModule.forRoot({ card: { name: 'Plain', description: 'Unsigned' }, baseUrl: BASE_URL })],
      providers: [EchoSkill],
    })
    class PlainModule {}
    const { app, url } = await startTestApp(PlainModule);
    try {
      expect((await fetch(`${url}/.well-known/jwks.json`)).status).toBe(404);
      expect((await getJson<AgentCard>(`${url}/.well-known/agent-card.json`)).body).not.toHaveProperty('signatures');
    } finally {
      await app.close();
    }
  });

  it('fails the bootstrap when the key provider has no active key', async () => {
    @Module({
      imports: [
        A2aModule.forRoot({
          card: { name: 'Keyless', description: 'No key' },
          cardSigning: { keys: { activeKeys: async () => [] } },
        }),
      ],
      providers: [EchoSkill],
    })
    class KeylessModule {}
    await expect(startTestApp(KeylessModule)).rejects.toThrow('no key is active');
  });
});

describe('the conformance agent with a card signing key (A2A_CARD_SIGNING_KEY)', () => {
  it('serves one EdDSA signature whose jku is its own JWK Set, which verifies the card', async () => {
    const key = await cardSigningKeyFromPem(privatePem);
    const agent = await startConformanceAgent({ cardSigningKey: key, adapter: TEST_HTTP_ADAPTER });
    try {
      const { body: card } = await getJson<AgentCard>(`${agent.url}/.well-known/agent-card.json`);
      expect(card.signatures).toHaveLength(1);
      const header = decodeProtectedHeader(card.signatures![0]);
      expect(header).toMatchObject({ alg: 'EdDSA', kid: key.kid, jku: `${agent.url}/.well-known/jwks.json` });
      expect(await verifyAgentCard(card, { jwksUrl: header.jku })).toMatchObject({ valid: true, kid: key.kid });
    } finally {
      await agent.close();
    }
  });
});
