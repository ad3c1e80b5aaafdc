import { canonicalizeAgentCard, verifyAgentCardSignature } from '@a2a-js/sdk';
import fc from 'fast-check';
import { calculateJwkThumbprint, decodeProtectedHeader, type JWK } from 'jose';
import { generateKeyPairSync, sign as nodeSign } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { A2aMessages } from '../../../libs/a2a/src/a2a.messages.js';
import { signAgentCard } from '../../../libs/a2a/src/card/signing/agent-card.signature.js';
import { MAX_CARD_SIGNATURES_TRIED, verifyAgentCard } from '../../../libs/a2a/src/card/signing/agent-card.verifier.js';
import { cardPayload } from '../../../libs/a2a/src/card/signing/card-payload.projection.js';
import { AGENT_CARD_SCHEMA, type MessageSchema } from '../../../libs/a2a/src/card/signing/card-payload.schema.js';
import type { CardSigningKey } from '../../../libs/a2a/src/card/signing/card-signing.key.js';
import {
  cardSigningKeyFromFile,
  cardSigningKeyFromPem,
} from '../../../libs/a2a/src/card/signing/pem-card-signing.key.js';
import type { AgentCard, AgentCardSignature } from '../../../libs/a2a/src/protocol/a2a.types.js';

const JKU = 'https://agent.example.com/.well-known/jwks.json';

function pem(type: 'ed25519' | 'p256' | 'p384' | 'rsa2048' | 'rsa1024'): string {
  const pair =
    type === 'ed25519'
      ? generateKeyPairSync('ed25519')
      : type === 'p256' || type === 'p384'
        ? generateKeyPairSync('ec', { namedCurve: type === 'p256' ? 'prime256v1' : 'secp384r1' })
        : generateKeyPairSync('rsa', { modulusLength: type === 'rsa2048' ? 2048 : 1024 });
  return pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
}

function jwkOf(key: CardSigningKey): JWK {
  return { ...key.publicJwk, kid: key.kid, alg: key.alg, use: 'sig' };
}

function baseCard(): AgentCard {
  return {
    name: 'Echo agent',
    description: 'Echoes text',
    supportedInterfaces: [
      { url: 'https://agent.example.com/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['echo'] }],
  };
}

/** A card whose strict and SDK payloads differ: the SDK drops the empty scope list. */
function bearerCard(): AgentCard {
  return {
    ...baseCard(),
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } } },
    securityRequirements: [{ schemes: { bearer: {} } }],
  };
}

function b64(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

/** A hand-made signature entry, to reach the verifier's checks with headers our signer never writes. */
async function craft(
  header: Record<string, unknown>,
  payload: string,
  key: CardSigningKey,
): Promise<AgentCardSignature> {
  const protectedHeader = b64(header);
  const signature = await key.sign(Buffer.from(`${protectedHeader}.${b64(payload)}`));
  return { protected: protectedHeader, signature: Buffer.from(signature).toString('base64url') };
}

let ed25519: CardSigningKey;
let p256: CardSigningKey;
let rsa: CardSigningKey;

beforeAll(async () => {
  ed25519 = await cardSigningKeyFromPem(pem('ed25519'));
  p256 = await cardSigningKeyFromPem(pem('p256'));
  rsa = await cardSigningKeyFromPem(pem('rsa2048'));
});

describe('card signing keys from PEM', () => {
  it('picks the algorithm from the key type; kid is the RFC 7638 thumbprint of the public key', async () => {
    expect([ed25519.alg, p256.alg, rsa.alg]).toEqual(['EdDSA', 'ES256', 'RS256']);
    for (const key of [ed25519, p256, rsa]) {
      expect(key.kid).toBe(await calculateJwkThumbprint(key.publicJwk, 'sha256'));
      expect(key.publicJwk).not.toHaveProperty('d');
    }
    expect(ed25519.publicJwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: expect.any(String) });
  });

  it('takes PS256 for RSA on request, and refuses what does not fit', async () => {
    expect((await cardSigningKeyFromPem(pem('rsa2048'), { alg: 'PS256' })).alg).toBe('PS256');
    await expect(cardSigningKeyFromPem(pem('ed25519'), { alg: 'ES256' })).rejects.toThrow(
      A2aMessages.cardSigningAlgorithmMismatch('ES256', 'ed25519'),
    );
    await expect(cardSigningKeyFromPem(pem('p384'))).rejects.toThrow(
      A2aMessages.unsupportedCardSigningKey('ec secp384r1'),
    );
    await expect(cardSigningKeyFromPem(pem('rsa1024'))).rejects.toThrow(A2aMessages.unsupportedCardSigningKey('rsa'));
  });

  it('reads a PEM file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'card-key-'));
    try {
      const path = join(dir, 'key.pem');
      await writeFile(path, pem('ed25519'));
      const key = await cardSigningKeyFromFile(path);
      expect(key.alg).toBe('EdDSA');
    } finally {
      await rm(dir, { recursive: true });
    }
  });

  it('signs ES256 as r‖s (64 bytes), not DER, and Ed25519 deterministically', async () => {
    expect((await p256.sign(Buffer.from('x'))).length).toBe(64);
    expect(Buffer.from(await ed25519.sign(Buffer.from('x')))).toEqual(
      Buffer.from(await ed25519.sign(Buffer.from('x'))),
    );
  });
});

describe('signAgentCard and verifyAgentCard', () => {
  it.each(['EdDSA', 'ES256', 'RS256', 'PS256'] as const)(
    'signs with %s, and the signature verifies with the pinned key',
    async (alg) => {
      const key =
        alg === 'EdDSA'
          ? ed25519
          : alg === 'ES256'
            ? p256
            : alg === 'RS256'
              ? rsa
              : await cardSigningKeyFromPem(pem('rsa2048'), { alg: 'PS256' });
      const signed = await signAgentCard(baseCard(), [key], JKU);
      expect(signed.signatures).toHaveLength(1);
      const result = await verifyAgentCard(signed, { keys: [jwkOf(key)] });
      expect(result).toEqual({ valid: true, kid: key.kid, coverage: 'strict', card: baseCard() });
    },
  );

  it('writes a flattened detached JWS: protected {alg, kid, typ: JOSE, jku}, unpadded base64url, no payload', async () => {
    const signed = await signAgentCard(baseCard(), [ed25519], JKU);
    const [signature] = signed.signatures!;
    expect(Object.keys(signature).sort()).toEqual(['protected', 'signature']);
    expect(JSON.parse(Buffer.from(signature.protected, 'base64url').toString())).toEqual({
      alg: 'EdDSA',
      kid: ed25519.kid,
      typ: 'JOSE',
      jku: JKU,
    });
    expect(`${signature.protected}${signature.signature}`).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('replaces the signatures a card had, and signs with every active key', async () => {
    const once = await signAgentCard(baseCard(), [ed25519], JKU);
    const twice = await signAgentCard(once, [ed25519, p256], JKU);
    expect(twice.signatures!.map((entry) => decodeProtectedHeader(entry).kid)).toEqual([ed25519.kid, p256.kid]);
    expect((await verifyAgentCard(twice, { keys: [jwkOf(p256)] })).kid).toBe(p256.kid);
  });

  it('signs the SDK payload and, when its bytes differ, the strict one too: both verifiers accept', async () => {
    const signed = await signAgentCard(bearerCard(), [ed25519], JKU);
    expect(signed.signatures).toHaveLength(2);
    expect(await verifyAgentCard(signed, { keys: [jwkOf(ed25519)] })).toMatchObject({
      valid: true,
      coverage: 'strict',
      card: bearerCard(),
    });
    await expect(verifyAgentCardSignature(async () => jwkOf(ed25519))(signed as never)).resolves.toBeUndefined();
  });

  it('with coverage "strict", signs only the spec\'s canonical form: one signature per key', async () => {
    const signed = await signAgentCard(bearerCard(), [ed25519], JKU, 'strict');
    expect(signed.signatures).toHaveLength(1);
    expect(await verifyAgentCard(signed, { keys: [jwkOf(ed25519)] })).toMatchObject({
      valid: true,
      coverage: 'strict',
      card: bearerCard(),
    });
  });

  it('with only the SDK signature left, says so and returns what that one covers', async () => {
    const signed = await signAgentCard(bearerCard(), [ed25519], JKU);
    const sdkOnly = { ...signed, signatures: [signed.signatures![0]] };
    const result = await verifyAgentCard(sdkOnly, { keys: [jwkOf(ed25519)] });
    expect(result).toMatchObject({ valid: true, coverage: 'sdk' });
    // The SDK's payload does not cover the empty scope list: the card rebuilt from it has no requirement at all.
    expect(result.card).not.toHaveProperty('securityRequirements');
    expect(result.card?.securitySchemes).toEqual(bearerCard().securitySchemes);
  });

  it('rejects a card with an edited field', async () => {
    const signed = await signAgentCard(bearerCard(), [ed25519], JKU);
    const edits: Array<(card: AgentCard) => void> = [
      (card) => (card.name = 'Evil agent'),
      (card) => (card.supportedInterfaces[0].url = 'https://evil.example.com/a2a/jsonrpc'),
      (card) => (card.capabilities.streaming = false),
      (card) => (card.skills[0].tags = ['echo', 'admin']),
      (card) => (card.securitySchemes = { bearer: { httpAuthSecurityScheme: { scheme: 'Basic' } } }),
    ];
    for (const edit of edits) {
      const tampered = structuredClone(signed);
      edit(tampered);
      expect(await verifyAgentCard(tampered, { keys: [jwkOf(ed25519)] })).toEqual({ valid: false });
    }
  });

  it('verifies a card stripped to what the SDK signature covers as that stripped card, never as the original', async () => {
    const signed = await signAgentCard(bearerCard(), [ed25519], JKU);
    const stripped = structuredClone(signed);
    delete stripped.securityRequirements;
    // The SDK's payload has no empty requirement, so its signature vouches for a card without one: the lossy part of
    // interoperating with @a2a-js/sdk, which is why only the returned card is to be trusted.
    const result = await verifyAgentCard(stripped, { keys: [jwkOf(ed25519)] });
    expect(result.valid).toBe(true);
    expect(result.card).not.toHaveProperty('securityRequirements');
  });

  it('rejects a card signed by a key that is not pinned, and a pinned key set without that kid', async () => {
    const signed = await signAgentCard(baseCard(), [ed25519], JKU);
    expect(await verifyAgentCard(signed, { keys: [jwkOf(p256)] })).toEqual({ valid: false });
    const other = await cardSigningKeyFromPem(pem('ed25519'));
    expect(await verifyAgentCard(signed, { keys: { keys: [{ ...jwkOf(other), kid: ed25519.kid }] } })).toEqual({
      valid: false,
    });
  });

  describe('keys from a URL', () => {
    let server: Server;
    let base: string;
    const hits: string[] = [];
    let served: JWK[] = [];

    beforeAll(async () => {
      server = createServer((req, res) => {
        hits.push(req.url ?? '');
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ keys: served }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));
    beforeEach(() => {
      hits.length = 0;
    });

    it('verifies against a trusted jwksUrl', async () => {
      served = [jwkOf(ed25519)];
      const signed = await signAgentCard(baseCard(), [ed25519], `${base}/trusted.json`);
      expect(await verifyAgentCard(signed, { jwksUrl: `${base}/trusted.json` })).toMatchObject({
        valid: true,
        kid: ed25519.kid,
      });
      expect(hits).toEqual(['/trusted.json']);
    });

    it("never fetches the card's own jku: a foreign key behind it is not trusted, a pinned key still is", async () => {
      const attacker = await cardSigningKeyFromPem(pem('ed25519'));
      served = [jwkOf(attacker)];
      const forged = await signAgentCard(baseCard(), [attacker], `${base}/attacker.json`);
      expect(await verifyAgentCard(forged, { keys: [jwkOf(ed25519)] })).toEqual({ valid: false });
      const genuine = await signAgentCard(baseCard(), [ed25519], `${base}/elsewhere.json`);
      expect(await verifyAgentCard(genuine, { keys: [jwkOf(ed25519)] })).toMatchObject({ valid: true });
      expect(hits).toEqual([]);
    });
  });

  it('is invalid, without throwing, on malformed cards and signature entries', async () => {
    const keys = [jwkOf(ed25519)];
    const good = await signAgentCard(baseCard(), [ed25519], JKU);
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    const inputs: unknown[] = [
      null,
      'card',
      42,
      [],
      {},
      { ...baseCard(), signatures: 'x' },
      { ...baseCard(), signatures: [] },
      {
        ...baseCard(),
        signatures: [
          null,
          1,
          'x',
          [],
          {},
          { protected: 1, signature: 'a' },
          { protected: '!!', signature: 'a' },
          { protected: b64('not json'), signature: 'x' },
        ],
      },
      { ...good, signatures: [{ ...good.signatures![0], signature: 'AAAA' }] },
      { ...good, signatures: [{ ...good.signatures![0], header: 'x' }] },
      { ...good, signatures: [{ ...good.signatures![0], header: { kid: 'x' } }] },
      { ...good, capabilities: { ...good.capabilities, extensions: [{ uri: 'x', params: deep }] } },
      { ...good, name: '\ud800' },
      { ...good, skills: [null] },
      { ...good, capabilities: 'streaming' },
    ];
    for (const input of inputs) expect(await verifyAgentCard(input, { keys })).toEqual({ valid: false });
  });

  it('accepts a signature only with an allowed alg fitting the key, a kid, typ JOSE or none, and no crit', async () => {
    const payload = cardPayload(baseCard(), 'strict');
    const keys = [jwkOf(ed25519)];
    const verdict = async (header: Record<string, unknown>) =>
      (await verifyAgentCard({ ...baseCard(), signatures: [await craft(header, payload, ed25519)] }, { keys })).valid;
    expect(await verdict({ alg: 'EdDSA', kid: ed25519.kid, typ: 'JOSE' })).toBe(true);
    expect(await verdict({ alg: 'EdDSA', kid: ed25519.kid })).toBe(true);
    expect(await verdict({ alg: 'EdDSA' })).toBe(false);
    expect(await verdict({ alg: 'EdDSA', kid: ed25519.kid, typ: 'JWT' })).toBe(false);
    expect(await verdict({ alg: 'EdDSA', kid: ed25519.kid, crit: ['exp'], exp: 1 })).toBe(false);
    expect(await verdict({ alg: 'EdDSA', kid: ed25519.kid, crit: ['b64'], b64: false })).toBe(false);
    expect(await verdict({ alg: 'none', kid: ed25519.kid })).toBe(false);
    expect(await verdict({ alg: 'HS256', kid: ed25519.kid })).toBe(false);
    // An Ed25519 signature that claims to be ES256: jose finds no P-256 key of that kid.
    expect(await verdict({ alg: 'ES256', kid: ed25519.kid })).toBe(false);
    expect(await verdict({ alg: 'Ed25519', kid: ed25519.kid })).toBe(false);
  });

  it('honours a narrower algorithm list', async () => {
    const signed = await signAgentCard(baseCard(), [ed25519], JKU);
    expect((await verifyAgentCard(signed, { keys: [jwkOf(ed25519)], algorithms: ['ES256'] })).valid).toBe(false);
    expect((await verifyAgentCard(signed, { keys: [jwkOf(ed25519)], algorithms: ['EdDSA'] })).valid).toBe(true);
  });

  it(`tries at most ${MAX_CARD_SIGNATURES_TRIED} signatures`, async () => {
    const signed = await signAgentCard(baseCard(), [ed25519], JKU);
    const bogus = { ...signed.signatures![0], signature: Buffer.alloc(64).toString('base64url') };
    const withGoodAt = (index: number) => ({
      ...signed,
      signatures: [...Array<AgentCardSignature>(index).fill(bogus), signed.signatures![0]],
    });
    expect((await verifyAgentCard(withGoodAt(MAX_CARD_SIGNATURES_TRIED - 1), { keys: [jwkOf(ed25519)] })).valid).toBe(
      true,
    );
    expect((await verifyAgentCard(withGoodAt(MAX_CARD_SIGNATURES_TRIED), { keys: [jwkOf(ed25519)] })).valid).toBe(
      false,
    );
  });

  it('needs keys to trust', async () => {
    await expect(verifyAgentCard(baseCard(), {})).rejects.toThrow(TypeError);
  });

  it('signs through a hand-made key (a KMS hook) that signs asynchronously', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
    const kms: CardSigningKey = {
      kid: 'kms-1',
      alg: 'ES256',
      publicJwk,
      sign: (input) =>
        new Promise((resolve) =>
          setTimeout(() => resolve(nodeSign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' })), 5),
        ),
    };
    const signed = await signAgentCard(baseCard(), [kms], JKU);
    expect(await verifyAgentCard(signed, { keys: [{ ...publicJwk, kid: 'kms-1' }] })).toMatchObject({
      valid: true,
      kid: 'kms-1',
    });
  });
});

describe('the signed payloads', () => {
  it('strict is the spec §8.4.1 example exactly', () => {
    const fragment = {
      name: 'Example Agent',
      description: '',
      capabilities: { streaming: false, pushNotifications: false, extensions: [] },
      skills: [],
    };
    expect(cardPayload(fragment, 'strict')).toBe(
      '{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}',
    );
  });

  it.each([
    ['REQUIRED empty values', { description: '', skills: [] }, { description: '', skills: [] }, {}],
    [
      'an empty scope list',
      { securityRequirements: [{ schemes: { bearer: {} } }] },
      { securityRequirements: [{ schemes: { bearer: {} } }] },
      {},
    ],
    [
      'an empty scheme message',
      { securitySchemes: { tls: { mtlsSecurityScheme: {} } } },
      { securitySchemes: { tls: { mtlsSecurityScheme: {} } } },
      {},
    ],
    [
      'an explicit optional false',
      { capabilities: { streaming: false } },
      { capabilities: { streaming: false } },
      { capabilities: { streaming: false } },
    ],
    [
      'an extension required: false',
      { capabilities: { extensions: [{ uri: 'u', required: false }] } },
      { capabilities: { extensions: [{ uri: 'u' }] } },
      { capabilities: { extensions: [{ uri: 'u' }] } },
    ],
    ['an unknown field (v0.3 url)', { url: 'https://old.example.com' }, {}, {}],
    [
      'empty values inside params',
      { capabilities: { extensions: [{ uri: 'u', params: { a: '', b: null, c: [], d: {}, e: 1 } }] } },
      { capabilities: { extensions: [{ uri: 'u', params: { a: '', b: null, c: [], d: {}, e: 1 } }] } },
      { capabilities: { extensions: [{ uri: 'u', params: { e: 1 } }] } },
    ],
  ])('strict and SDK payloads of %s', (_row, fields, strict, sdk) => {
    const card = { name: 'n', ...fields };
    expect(JSON.parse(cardPayload(card, 'strict'))).toEqual({ name: 'n', ...strict });
    expect(JSON.parse(cardPayload(card, 'sdk'))).toEqual({ name: 'n', ...sdk });
  });

  it('strict refuses mistyped fields; the SDK coerces them as its fromJSON does', () => {
    const card = { name: 7, capabilities: { streaming: 'yes' }, skills: [{ id: 1, tags: [2, ''] }] };
    expect(() => cardPayload(card, 'strict')).toThrow('AgentCard field "name" is not a string');
    expect(cardPayload(card, 'sdk')).toBe(canonicalizeAgentCard(card as never));
  });

  it("the SDK payload is byte for byte @a2a-js/sdk 1.3's canonicalizeAgentCard", async () => {
    const cards: unknown[] = [
      baseCard(),
      bearerCard(),
      (await signAgentCard(bearerCard(), [ed25519], JKU)) as unknown,
      {
        ...baseCard(),
        documentation_url: 'https://docs',
        icon_url: '',
        default_input_modes: ['a', ''],
        provider: { url: 'u', organization: '' },
      },
      {
        ...baseCard(),
        securitySchemes: {
          __proto__: { apiKeySecurityScheme: { name: 'k', location: 'header' } },
          a: { oauth2SecurityScheme: { flows: { implicit: { scopes: { r: 'read', __proto__: 'x' } }, password: {} } } },
        },
      },
      { ...baseCard(), capabilities: { extensions: [{ uri: 'u', required: true, params: [1, '', { x: [null] }] }] } },
      JSON.parse('{"name":"n","capabilities":{"extensions":[{"params":{"__proto__":{"x":1},"y":{"__proto__":2}}}]}}'),
    ];
    for (const card of cards) expect(cardPayload(card, 'sdk')).toBe(canonicalizeAgentCard(card as never));
  });

  it('the SDK payload agrees with canonicalizeAgentCard on random card-shaped input, throwing where it throws', () => {
    fc.assert(
      fc.property(cardShaped(AGENT_CARD_SCHEMA, 3), (card) => {
        let expected: string | undefined;
        try {
          expected = canonicalizeAgentCard(card as never);
        } catch {
          expected = undefined;
        }
        if (expected === undefined) expect(() => cardPayload(card, 'sdk')).toThrow();
        else expect(cardPayload(card, 'sdk')).toBe(expected);
      }),
      { numRuns: 400 },
    );
  });
});

/** Objects with the schema's fields (under either name), well- or ill-typed, plus unknown ones. */
function cardShaped(schema: MessageSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const junk = fc.constantFrom<unknown>(null, '', 0, 1, true, false, [], {}, 'x', [null], { a: 1 });
  const entries = schema.map((field) => {
    const single: fc.Arbitrary<unknown> =
      field.type === 'string'
        ? fc.string({ maxLength: 3 })
        : field.type === 'bool'
          ? fc.boolean()
          : field.type === 'struct'
            ? fc.jsonValue({ maxDepth: 3 })
            : depth > 0
              ? cardShaped(field.type, depth - 1)
              : fc.constant({});
    const value =
      field.shape === 'repeated'
        ? fc.array(fc.oneof({ weight: 9, arbitrary: single }, { weight: 1, arbitrary: junk }), { maxLength: 3 })
        : field.shape === 'map'
          ? fc.dictionary(
              fc.constantFrom('a', 'b', '', '__proto__'),
              fc.oneof({ weight: 9, arbitrary: single }, { weight: 1, arbitrary: junk }),
              { maxKeys: 3 },
            )
          : single;
    const name =
      field.protoName === field.name ? fc.constant(field.name) : fc.constantFrom(field.name, field.protoName);
    return fc.option(fc.tuple(name, fc.oneof({ weight: 5, arbitrary: value }, { weight: 1, arbitrary: junk })), {
      nil: undefined,
      freq: 3,
    });
  });
  const unknown = fc.option(fc.tuple(fc.constant('unknownField'), fc.jsonValue({ maxDepth: 2 })), { nil: undefined });
  return fc.tuple(fc.tuple(...entries), unknown).map(([fields, extra]) => {
    const message: Record<string, unknown> = {};
    for (const entry of [...fields, extra]) if (entry) message[entry[0]] = entry[1];
    return message;
  });
}
