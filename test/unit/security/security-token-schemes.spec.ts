import { createPublicKey, randomBytes } from 'node:crypto';
import { jest } from '@jest/globals';
import { SignJWT, type JWK } from 'jose';
import { A2aMessages } from '../../../libs/a2a/src/a2a.messages.js';
import { InvalidSecurityConfigError } from '../../../libs/a2a/src/errors/security-config.error.js';
import type { A2aSecurityScheme, SchemeOutcome } from '../../../libs/a2a/src/security/a2a-security-scheme.js';
import type { CredentialSource } from '../../../libs/a2a/src/security/credential-source.js';
import {
  bearerJwtScheme,
  type BearerJwtSchemeOptions,
} from '../../../libs/a2a/src/security/schemes/bearer-jwt.scheme.js';
import { bearerTokenScheme } from '../../../libs/a2a/src/security/schemes/bearer-token.scheme.js';
import { oauth2Scheme, type OAuth2SchemeOptions } from '../../../libs/a2a/src/security/schemes/oauth2.scheme.js';
import {
  openIdConnectScheme,
  type OpenIdConnectSchemeOptions,
} from '../../../libs/a2a/src/security/schemes/openid-connect.scheme.js';
import type { TokenIntrospection } from '../../../libs/a2a/src/security/schemes/token-introspection.js';
import { IdentityProvider } from '../../fixtures/identity-provider.js';

/** The source of a call that sent this `Authorization` value (or none). */
function authorization(value: string | undefined): CredentialSource {
  return {
    header: (name) => (name.toLowerCase() === 'authorization' ? value : undefined),
    query: () => undefined,
    cookie: () => undefined,
    peerCertificate: () => undefined,
    refusedPeerCertificate: () => false,
    grpc: false,
  };
}

const bearer = (token: string) => authorization(`Bearer ${token}`);
const LOOPBACK = ['127.0.0.1'];

async function outcome(scheme: A2aSecurityScheme, source: CredentialSource): Promise<SchemeOutcome> {
  return scheme.authenticate(source);
}

function expectGranted(result: SchemeOutcome): Extract<SchemeOutcome, { status: 'granted' }>['grant'] {
  expect(result).toMatchObject({ status: 'granted' });
  return (result as Extract<SchemeOutcome, { status: 'granted' }>).grant;
}

/** A clock the test moves by hand. */
function manualClock(start = Date.now()) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => void (now += ms) };
}

/** Fakes Date only (jose's JWKS cooldown reads Date.now()); sockets and timers stay real. */
function fakeDateOnly(): void {
  jest.useFakeTimers({
    now: Date.now(),
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
}

describe('bearerJwtScheme', () => {
  let idp: IdentityProvider;
  let scheme: A2aSecurityScheme;
  const jwtScheme = (extra: Partial<BearerJwtSchemeOptions> = {}) =>
    bearerJwtScheme({
      issuer: idp.issuer,
      audience: idp.audience,
      jwksUrl: idp.jwksUrl,
      allowInsecureHttp: LOOPBACK,
      ...extra,
    });

  beforeAll(async () => {
    idp = await IdentityProvider.start({ algorithms: ['RS256', 'ES256', 'EdDSA'] });
    scheme = jwtScheme();
  });
  afterAll(() => idp.stop());

  it('declares an http Bearer scheme of format JWT', () => {
    expect(jwtScheme({ description: 'IdP tokens' }).declaration).toEqual({
      httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT', description: 'IdP tokens' },
    });
  });

  it('challenges with the realm, and invalid_token after a bad credential', () => {
    expect(scheme.challenge?.(false)).toBe('Bearer realm="a2a"');
    expect(scheme.challenge?.(true)).toBe('Bearer realm="a2a", error="invalid_token"');
  });

  it.each(['RS256', 'ES256', 'EdDSA'] as const)(
    'grants a good %s token: subject sub, issuer iss, claims the payload',
    async (alg) => {
      const grant = expectGranted(
        await outcome(scheme, bearer(await idp.token({ sub: 'alice', tier: 'gold' }, { alg }))),
      );
      expect(grant).toMatchObject({ subject: 'alice', issuer: idp.issuer, scopes: [] });
      expect(grant.claims).toMatchObject({ sub: 'alice', tier: 'gold', aud: idp.audience });
    },
  );

  it('reads the scheme name case-insensitively', async () => {
    const token = await idp.token();
    expectGranted(await outcome(scheme, authorization(`bEaReR ${token}`)));
  });

  it('is absent without an Authorization header, or with another scheme in it', async () => {
    expect(await outcome(scheme, authorization(undefined))).toEqual({ status: 'absent' });
    expect(await outcome(scheme, authorization('Basic YWxpY2U6c2VjcmV0'))).toEqual({ status: 'absent' });
  });

  it.each([
    ['no token', 'Bearer'],
    ['an empty token', 'Bearer '],
    ['two tokens', 'Bearer a.b.c d.e.f'],
    ['characters outside token68', 'Bearer a.b.c;drop'],
    ['padding inside', 'Bearer ab=c'],
  ])('is invalid for %s', async (_label, header) => {
    expect(await outcome(scheme, authorization(header))).toMatchObject({
      status: 'invalid',
      reason: 'malformed_bearer_credential',
    });
  });

  it('#2 refuses a garbage token', async () => {
    expect(await outcome(scheme, bearer('garbage'))).toEqual({ status: 'invalid', reason: 'ERR_JWS_INVALID' });
    expect(await outcome(scheme, bearer('a.b.c'))).toMatchObject({ status: 'invalid' });
  });

  it('#3 refuses a token expired 120 s ago, accepts one expired 10 s ago (30 s skew)', async () => {
    expect(await outcome(scheme, bearer(await idp.token({}, { expiresIn: -120 })))).toEqual({
      status: 'invalid',
      reason: 'ERR_JWT_EXPIRED:exp',
    });
    expectGranted(await outcome(scheme, bearer(await idp.token({}, { expiresIn: -10 }))));
  });

  it('#4 refuses a token whose nbf is 2 minutes ahead', async () => {
    const token = await idp.token({}, { notBefore: 120 });
    expect(await outcome(scheme, bearer(token))).toEqual({
      status: 'invalid',
      reason: 'ERR_JWT_CLAIM_VALIDATION_FAILED:nbf',
    });
  });

  it('#5 refuses a token for another audience', async () => {
    const token = await idp.token({ aud: 'https://other-agent.test' });
    expect(await outcome(scheme, bearer(token))).toEqual({
      status: 'invalid',
      reason: 'ERR_JWT_CLAIM_VALIDATION_FAILED:aud',
    });
  });

  it('#6 refuses a well-signed token from another issuer', async () => {
    const token = await idp.token({ iss: 'https://evil.example' });
    expect(await outcome(scheme, bearer(token))).toEqual({
      status: 'invalid',
      reason: 'ERR_JWT_CLAIM_VALIDATION_FAILED:iss',
    });
  });

  it('#7 refuses alg none', async () => {
    expect(await outcome(scheme, bearer(idp.unsignedToken()))).toEqual({
      status: 'invalid',
      reason: 'ERR_JOSE_ALG_NOT_ALLOWED',
    });
  });

  it('#8 refuses HS256 keyed with the RSA public key', async () => {
    expect(await outcome(scheme, bearer(await idp.hs256WithPublicKey()))).toEqual({
      status: 'invalid',
      reason: 'ERR_JOSE_ALG_NOT_ALLOWED',
    });
  });

  it('refuses a token signed with a kid the IdP does not publish', async () => {
    const token = await idp.token({}, { kid: 'not-published' });
    expect(await outcome(scheme, bearer(token))).toEqual({ status: 'invalid', reason: 'ERR_JWKS_NO_MATCHING_KEY' });
  });

  it('#11 refuses a 12 KiB token before parsing it (no JWKS fetch)', async () => {
    const fresh = jwtScheme();
    const token = await idp.oversizedToken(12 * 1024);
    const before = idp.hits.jwks;
    expect(await outcome(fresh, bearer(token))).toEqual({ status: 'invalid', reason: 'token_too_large' });
    expect(idp.hits.jwks).toBe(before);
  });

  it('caps the token at maxTokenBytes', async () => {
    const token = await idp.token();
    expect(await outcome(jwtScheme({ maxTokenBytes: token.length - 1 }), bearer(token))).toMatchObject({
      reason: 'token_too_large',
    });
    expectGranted(await outcome(jwtScheme({ maxTokenBytes: token.length }), bearer(token)));
  });

  it('requires exp and sub', async () => {
    expect(await outcome(scheme, bearer(await idp.token({ sub: undefined })))).toEqual({
      status: 'invalid',
      reason: 'ERR_JWT_CLAIM_VALIDATION_FAILED:sub',
    });
    expect(await outcome(scheme, bearer(await idp.token({ exp: undefined })))).toEqual({
      status: 'invalid',
      reason: 'ERR_JWT_CLAIM_VALIDATION_FAILED:exp',
    });
  });

  it('grants the union of scope and scp', async () => {
    const withArray = await idp.token({ scope: 'tasks:read tasks:write', scp: ['tasks:read', 'skills:travel'] });
    expect(expectGranted(await outcome(scheme, bearer(withArray))).scopes).toEqual([
      'tasks:read',
      'tasks:write',
      'skills:travel',
    ]);
    const withString = await idp.token({ scp: 'a b' });
    expect(expectGranted(await outcome(scheme, bearer(withString))).scopes).toEqual(['a', 'b']);
  });

  it('checks typ when asked (RFC 9068 at+jwt)', async () => {
    const typed = jwtScheme({ typ: 'at+jwt' });
    expectGranted(await outcome(typed, bearer(await idp.token({}, { header: { typ: 'at+jwt' } }))));
    expect(await outcome(typed, bearer(await idp.token()))).toEqual({
      status: 'invalid',
      reason: 'ERR_JWT_CLAIM_VALIDATION_FAILED:typ',
    });
  });

  it('checks maxTokenAge against iat', async () => {
    const token = await idp.token({ iat: Math.floor(Date.now() / 1000) - 3600 });
    expect(await outcome(jwtScheme({ maxTokenAge: '10m' }), bearer(token))).toEqual({
      status: 'invalid',
      reason: 'ERR_JWT_EXPIRED:iat',
    });
  });

  it('reads time from the injected clock', async () => {
    const clock = manualClock();
    const timed = jwtScheme({ currentDate: clock.now });
    const token = await idp.token({}, { expiresIn: 300 });
    expectGranted(await outcome(timed, bearer(token)));
    clock.advance(331_000);
    expect(await outcome(timed, bearer(token))).toEqual({ status: 'invalid', reason: 'ERR_JWT_EXPIRED:exp' });
  });

  describe('static keys', () => {
    let publicJwks: JWK[];
    beforeAll(async () => {
      publicJwks = ((await (await fetch(idp.jwksUrl)).json()) as { keys: JWK[] }).keys;
    });
    const rsaJwk = () => publicJwks.find((key) => key.alg === 'RS256')!;

    it('verifies against a fixed JWKS or a list of JWKs', async () => {
      const token = await idp.token({}, { alg: 'ES256' });
      expectGranted(await outcome(jwtScheme({ jwksUrl: undefined, jwks: { keys: publicJwks } }), bearer(token)));
      expectGranted(await outcome(jwtScheme({ jwksUrl: undefined, jwks: publicJwks }), bearer(token)));
    });

    it('verifies against a PEM or a KeyObject, refusing tokens of another key type', async () => {
      const keyObject = createPublicKey({ key: rsaJwk() as never, format: 'jwk' });
      const pem = keyObject.export({ type: 'spki', format: 'pem' }) as string;
      for (const publicKey of [pem, keyObject]) {
        const pinned = jwtScheme({ jwksUrl: undefined, publicKey });
        expectGranted(await outcome(pinned, bearer(await idp.token({}, { alg: 'RS256' }))));
        expect(await outcome(pinned, bearer(await idp.token({}, { alg: 'ES256' })))).toMatchObject({
          status: 'invalid',
        });
        expect(await outcome(pinned, bearer(await idp.hs256WithPublicKey()))).toEqual({
          status: 'invalid',
          reason: 'ERR_JOSE_ALG_NOT_ALLOWED',
        });
      }
    });

    it('allows HS256 only with a configured secret', async () => {
      const secret = randomBytes(32);
      const hmac = jwtScheme({ jwksUrl: undefined, secret });
      const now = Math.floor(Date.now() / 1000);
      const token = await new SignJWT({ iss: idp.issuer, aud: idp.audience, sub: 'svc', exp: now + 60 })
        .setProtectedHeader({ alg: 'HS256' })
        .sign(secret);
      expect(expectGranted(await outcome(hmac, bearer(token))).subject).toBe('svc');
      expect(await outcome(hmac, bearer(await idp.token()))).toEqual({
        status: 'invalid',
        reason: 'ERR_JOSE_ALG_NOT_ALLOWED',
      });
    });
  });

  describe('refuses unsafe configurations at construction', () => {
    it.each<[string, () => Partial<BearerJwtSchemeOptions>, () => string]>([
      ['alg none', () => ({ algorithms: ['RS256', 'none'] }), () => A2aMessages.jwtAlgorithmNone()],
      [
        'HS256 with a JWKS',
        () => ({ algorithms: ['RS256', 'HS256'] }),
        () => A2aMessages.jwtHmacWithPublicKey('HS256'),
      ],
      [
        'RS256 with a secret',
        () => ({ jwksUrl: undefined, secret: 'x'.repeat(32), algorithms: ['RS256'] }),
        () => A2aMessages.jwtSecretNeedsHmac('RS256'),
      ],
      ['a short secret', () => ({ jwksUrl: undefined, secret: 'short' }), () => A2aMessages.jwtWeakSecret(5)],
      ['two key sources', () => ({ secret: 'x'.repeat(32) }), () => A2aMessages.jwtKeySources(2)],
      ['no key source', () => ({ jwksUrl: undefined }), () => A2aMessages.jwtKeySources(0)],
      ['no audience', () => ({ audience: [] }), () => A2aMessages.jwtClaimsRequired()],
      ['no issuer', () => ({ issuer: '' }), () => A2aMessages.jwtClaimsRequired()],
      ['a skew over 60 s', () => ({ clockToleranceSeconds: 61 }), () => A2aMessages.jwtClockTolerance(61)],
      ['no algorithms', () => ({ algorithms: [] }), () => A2aMessages.jwtNoAlgorithms()],
      ['a zero token cap', () => ({ maxTokenBytes: 0 }), () => A2aMessages.maxTokenBytes(0)],
      [
        'an http JWKS not allowlisted',
        () => ({ allowInsecureHttp: undefined }),
        () => A2aMessages.insecureIdentityProviderUrl('jwksUrl', idp.jwksUrl),
      ],
      [
        'a JWKS URL that is no URL',
        () => ({ jwksUrl: 'jwks.json' }),
        () => A2aMessages.invalidIdentityProviderUrl('jwksUrl', 'jwks.json'),
      ],
    ])('%s', (_label, options, message) => {
      expect(() => jwtScheme(options())).toThrow(message());
      expect(() => jwtScheme(options())).toThrow(InvalidSecurityConfigError);
    });
  });
});

describe('bearerJwtScheme against an unreachable IdP', () => {
  let idp: IdentityProvider;
  const jwtScheme = () =>
    bearerJwtScheme({ issuer: idp.issuer, audience: idp.audience, jwksUrl: idp.jwksUrl, allowInsecureHttp: LOOPBACK });

  beforeEach(async () => {
    idp = await IdentityProvider.start();
  });
  afterEach(async () => {
    jest.useRealTimers();
    await idp.stop();
  });

  it('is unavailable, never invalid, while the JWKS cannot be fetched; granted once it can', async () => {
    const scheme = jwtScheme();
    const token = await idp.token();
    idp.down();
    expect(await outcome(scheme, bearer(token))).toMatchObject({ status: 'unavailable' });
    idp.up();
    expectGranted(await outcome(scheme, bearer(token)));
  });

  it('is unavailable when the JWKS answers an HTTP error', async () => {
    idp.failWith(503);
    expect(await outcome(jwtScheme(), bearer(await idp.token()))).toMatchObject({
      status: 'unavailable',
      reason: expect.stringContaining('503'),
    });
  });

  it('is unavailable when the JWKS does not answer within 5 s', async () => {
    idp.hang();
    const started = Date.now();
    expect(await outcome(jwtScheme(), bearer(await idp.token()))).toMatchObject({ status: 'unavailable' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
  });

  it('still grants from cached keys while the IdP is down', async () => {
    const scheme = jwtScheme();
    expectGranted(await outcome(scheme, bearer(await idp.token())));
    idp.down();
    expectGranted(await outcome(scheme, bearer(await idp.token())));
  });

  it('#9 refuses a new kid within the refetch cooldown, then refetches the rotated JWKS and grants it', async () => {
    fakeDateOnly();
    const scheme = jwtScheme();
    const oldToken = await idp.token();
    expectGranted(await outcome(scheme, bearer(oldToken)));
    expect(idp.hits.jwks).toBe(1);

    await idp.rotate();
    const newToken = await idp.token();
    // A burst of unknown kids cannot make us hammer the IdP: one refetch per 30 s at most.
    expect(await outcome(scheme, bearer(newToken))).toEqual({ status: 'invalid', reason: 'ERR_JWKS_NO_MATCHING_KEY' });
    expect(idp.hits.jwks).toBe(1);

    jest.setSystemTime(Date.now() + 31_000);
    expectGranted(await outcome(scheme, bearer(newToken)));
    expect(idp.hits.jwks).toBe(2);
    // A verified token is reused for at most a minute (VerifiedTokenCache): the withdrawn key's token stops working then.
    jest.setSystemTime(Date.now() + 30_000);
    expect(await outcome(scheme, bearer(oldToken))).toEqual({ status: 'invalid', reason: 'ERR_JWKS_NO_MATCHING_KEY' });
  });
});

describe('bearerTokenScheme', () => {
  const source = bearer('opaque-token_123');

  it('declares an http Bearer scheme without a format', () => {
    expect(bearerTokenScheme({ verify: async () => undefined }).declaration).toEqual({
      httpAuthSecurityScheme: { scheme: 'Bearer' },
    });
  });

  it('grants what verify() returns and is invalid when it returns nothing', async () => {
    const grant = { subject: 'bot-7', scopes: ['tasks:read'] };
    const verify = jest.fn(async (token: string) => (token === 'opaque-token_123' ? grant : undefined));
    expect(await outcome(bearerTokenScheme({ verify }), source)).toEqual({ status: 'granted', grant });
    expect(await outcome(bearerTokenScheme({ verify }), bearer('other'))).toMatchObject({ status: 'invalid' });
  });

  it('is unavailable when verify() throws', async () => {
    const scheme = bearerTokenScheme({ verify: async () => Promise.reject(new Error('token service down')) });
    expect(await outcome(scheme, source)).toMatchObject({
      status: 'unavailable',
      reason: expect.stringContaining('token service down'),
    });
  });

  it('refuses an oversized token without calling verify()', async () => {
    const verify = jest.fn(async () => undefined);
    expect(await outcome(bearerTokenScheme({ verify }), bearer('a'.repeat(8193)))).toMatchObject({
      reason: 'token_too_large',
    });
    expect(verify).not.toHaveBeenCalled();
  });
});

describe('oauth2Scheme', () => {
  let idp: IdentityProvider;
  const flows = { clientCredentials: { tokenUrl: 'https://idp.test/token', scopes: { 'tasks:read': 'Read tasks' } } };
  const jwt = () => ({ issuer: idp.issuer, audience: idp.audience, jwksUrl: idp.jwksUrl, allowInsecureHttp: LOOPBACK });
  const active = (extra: Partial<TokenIntrospection> = {}): TokenIntrospection => ({
    active: true,
    sub: 'carol',
    scope: 'tasks:read',
    ...extra,
  });
  const introspected = (introspect: OAuth2SchemeOptions['introspect'], extra: Partial<OAuth2SchemeOptions> = {}) =>
    oauth2Scheme({ flows, introspect, ...extra });

  beforeAll(async () => {
    idp = await IdentityProvider.start();
  });
  afterAll(() => idp.stop());

  it('declares its flows, metadata URL and description', () => {
    expect(
      oauth2Scheme({
        flows,
        oauth2MetadataUrl: 'https://idp.test/.well-known/oauth-authorization-server',
        description: 'd',
        jwt: jwt(),
      }).declaration,
    ).toEqual({
      oauth2SecurityScheme: {
        flows,
        oauth2MetadataUrl: 'https://idp.test/.well-known/oauth-authorization-server',
        description: 'd',
      },
    });
  });

  it('needs jwt options or an introspection hook', () => {
    expect(() => oauth2Scheme({ flows })).toThrow(A2aMessages.oauth2WithoutVerifier());
  });

  describe('JWT access tokens (RFC 9068)', () => {
    it('owns the token by sub', async () => {
      const grant = expectGranted(
        await outcome(
          oauth2Scheme({ flows, jwt: jwt() }),
          bearer(await idp.token({ sub: 'alice', scope: 'tasks:read' })),
        ),
      );
      expect(grant).toMatchObject({ subject: 'alice', issuer: idp.issuer, scopes: ['tasks:read'] });
    });

    it('owns a client-credentials token without sub by client:<client_id>, else client:<azp>', async () => {
      const scheme = oauth2Scheme({ flows, jwt: jwt() });
      expect(
        expectGranted(await outcome(scheme, bearer(await idp.token({ sub: undefined, client_id: 'svc-a' })))).subject,
      ).toBe('client:svc-a');
      expect(
        expectGranted(await outcome(scheme, bearer(await idp.token({ sub: undefined, azp: 'svc-b' })))).subject,
      ).toBe('client:svc-b');
      expect(await outcome(scheme, bearer(await idp.token({ sub: undefined })))).toEqual({
        status: 'invalid',
        reason: 'missing_subject',
      });
    });

    it('refuses ID tokens: a typ other than JWT or at+jwt, or a nonce, at_hash or c_hash without typ at+jwt', async () => {
      const scheme = oauth2Scheme({ flows, jwt: jwt() });
      for (const claims of [{ nonce: 'n-1' }, { at_hash: 'h' }, { c_hash: 'h' }]) {
        expect(await outcome(scheme, bearer(await idp.token(claims)))).toMatchObject({
          status: 'invalid',
          reason: expect.stringContaining('not_an_access_token'),
        });
      }
      expect(await outcome(scheme, bearer(await idp.token({}, { header: { typ: 'id_token+jwt' } })))).toMatchObject({
        status: 'invalid',
      });
      // Ordinary access tokens: typ JWT (most IdPs), none, or RFC 9068's at+jwt, which may carry any claim.
      expectGranted(await outcome(scheme, bearer(await idp.token({}))));
      expectGranted(await outcome(scheme, bearer(await idp.token({}, { header: { typ: undefined } }))));
      expectGranted(await outcome(scheme, bearer(await idp.token({ nonce: 'n-1' }, { header: { typ: 'at+jwt' } }))));
      expectGranted(await outcome(scheme, bearer(await idp.token({}, { header: { typ: 'application/at+JWT' } }))));
    });

    it('refuses the hostile tokens as bearerJwtScheme does', async () => {
      const scheme = oauth2Scheme({ flows, jwt: jwt() });
      expect(await outcome(scheme, bearer(idp.unsignedToken()))).toMatchObject({ status: 'invalid' });
      expect(await outcome(scheme, bearer(await idp.hs256WithPublicKey()))).toMatchObject({ status: 'invalid' });
      expect(await outcome(scheme, bearer(await idp.token({ aud: 'elsewhere' })))).toMatchObject({ status: 'invalid' });
      expect(await outcome(scheme, bearer('opaque'))).toMatchObject({ status: 'invalid' });
    });
  });

  describe('opaque tokens through introspection (RFC 7662)', () => {
    it('grants an active token: subject sub (else client_id), scopes from scope', async () => {
      const grant = expectGranted(
        await outcome(
          introspected(async () => active({ iss: 'https://as.test' })),
          bearer('opaque-1'),
        ),
      );
      expect(grant).toMatchObject({ subject: 'carol', issuer: 'https://as.test', scopes: ['tasks:read'] });
      const client = expectGranted(
        await outcome(
          introspected(async () => active({ sub: undefined, client_id: 'svc' })),
          bearer('opaque-1'),
        ),
      );
      expect(client.subject).toBe('client:svc');
    });

    it('is invalid for an inactive token', async () => {
      expect(
        await outcome(
          introspected(async () => ({ active: false })),
          bearer('opaque-1'),
        ),
      ).toEqual({ status: 'invalid', reason: 'token_inactive' });
    });

    it('is unavailable when the hook throws, and asks again next time', async () => {
      const introspect = jest
        .fn<(token: string) => Promise<TokenIntrospection>>()
        .mockRejectedValueOnce(new Error('AS down'))
        .mockResolvedValue(active());
      const scheme = introspected(introspect);
      expect(await outcome(scheme, bearer('opaque-1'))).toMatchObject({
        status: 'unavailable',
        reason: expect.stringContaining('AS down'),
      });
      expectGranted(await outcome(scheme, bearer('opaque-1')));
      expect(introspect).toHaveBeenCalledTimes(2);
    });

    it('caches an answer for 60 s at most', async () => {
      const clock = manualClock();
      const introspect = jest.fn(async (_token: string) => active());
      const scheme = introspected(introspect, { currentDate: clock.now });
      expectGranted(await outcome(scheme, bearer('opaque-1')));
      clock.advance(59_000);
      expectGranted(await outcome(scheme, bearer('opaque-1')));
      expect(introspect).toHaveBeenCalledTimes(1);
      await outcome(scheme, bearer('opaque-2'));
      expect(introspect).toHaveBeenCalledTimes(2);
      clock.advance(2_000);
      expectGranted(await outcome(scheme, bearer('opaque-1')));
      expect(introspect).toHaveBeenCalledTimes(3);
    });

    it('caches an answer no longer than the token lives', async () => {
      const clock = manualClock();
      const exp = Math.floor(clock.now().getTime() / 1000) + 10;
      const introspect = jest.fn(async (_token: string) => active({ exp }));
      const scheme = introspected(introspect, { currentDate: clock.now });
      expectGranted(await outcome(scheme, bearer('opaque-1')));
      clock.advance(11_000);
      await outcome(scheme, bearer('opaque-1'));
      expect(introspect).toHaveBeenCalledTimes(2);
    });

    it('caches inactive answers too, so a flood of bad tokens reaches the server once each', async () => {
      const introspect = jest.fn(async (_token: string) => ({ active: false }));
      const scheme = introspected(introspect);
      await outcome(scheme, bearer('bad'));
      expect(await outcome(scheme, bearer('bad'))).toMatchObject({ status: 'invalid' });
      expect(introspect).toHaveBeenCalledTimes(1);
    });

    it('is invalid for an active answer whose exp has passed', async () => {
      const exp = Math.floor(Date.now() / 1000) - 120;
      expect(
        await outcome(
          introspected(async () => active({ exp })),
          bearer('opaque-1'),
        ),
      ).toEqual({ status: 'invalid', reason: 'token_expired' });
    });

    it('with jwt options too, sends JWTs to jose and only opaque tokens to the hook', async () => {
      const introspect = jest.fn(async (_token: string) => active({ sub: 'from-hook' }));
      const scheme = oauth2Scheme({ flows, jwt: jwt(), introspect });
      expect(expectGranted(await outcome(scheme, bearer(await idp.token({ sub: 'from-jwt' })))).subject).toBe(
        'from-jwt',
      );
      expect(await outcome(scheme, bearer(idp.unsignedToken()))).toMatchObject({ status: 'invalid' });
      expect(introspect).not.toHaveBeenCalled();
      expect(expectGranted(await outcome(scheme, bearer('opaque-1'))).subject).toBe('from-hook');
    });
  });
});

describe('openIdConnectScheme', () => {
  let idp: IdentityProvider;
  const oidc = (extra: Partial<OpenIdConnectSchemeOptions> = {}) =>
    openIdConnectScheme({
      openIdConnectUrl: idp.discoveryUrl,
      audience: idp.audience,
      allowInsecureHttp: LOOPBACK,
      ...extra,
    });

  beforeEach(async () => {
    idp = await IdentityProvider.start();
  });
  afterEach(() => idp.stop());

  it('declares the discovery URL', () => {
    expect(oidc().declaration).toEqual({ openIdConnectSecurityScheme: { openIdConnectUrl: idp.discoveryUrl } });
  });

  it('fetches discovery on the first token only, then keys from its jwks_uri', async () => {
    const scheme = oidc({ issuer: idp.issuer });
    expect(await outcome(scheme, authorization(undefined))).toEqual({ status: 'absent' });
    expect(idp.hits.discovery).toBe(0);
    const grant = expectGranted(
      await outcome(scheme, bearer(await idp.token({ sub: 'dave', scp: ['openid', 'tasks:read'] }))),
    );
    expect(grant).toMatchObject({ subject: 'dave', issuer: idp.issuer, scopes: ['openid', 'tasks:read'] });
    expectGranted(await outcome(scheme, bearer(await idp.token())));
    expect(idp.hits).toEqual({ discovery: 1, jwks: 1 });
  });

  it('refetches discovery after 24 hours', async () => {
    const clock = manualClock();
    const scheme = oidc({ currentDate: clock.now });
    expectGranted(await outcome(scheme, bearer(await idp.token())));
    clock.advance(24 * 3600_000 - 1000);
    await outcome(scheme, bearer(await idp.token()));
    expect(idp.hits.discovery).toBe(1);
    clock.advance(2000);
    // The clock moved a day but the token was minted on the real one: check discovery only.
    await outcome(scheme, bearer(await idp.token()));
    expect(idp.hits.discovery).toBe(2);
  });

  it('refuses a token whose iss is not the discovered issuer', async () => {
    const token = await idp.token({ iss: 'https://evil.example' });
    expect(await outcome(oidc(), bearer(token))).toEqual({
      status: 'invalid',
      reason: 'ERR_JWT_CLAIM_VALIDATION_FAILED:iss',
    });
    idp.discoveryOverrides = { issuer: 'https://other-issuer.example' };
    expect(await outcome(oidc(), bearer(await idp.token()))).toEqual({
      status: 'invalid',
      reason: 'ERR_JWT_CLAIM_VALIDATION_FAILED:iss',
    });
  });

  it('is unavailable when discovery names another issuer than configured (its data must not be used)', async () => {
    idp.discoveryOverrides = { issuer: 'https://other-issuer.example' };
    expect(await outcome(oidc({ issuer: idp.issuer }), bearer(await idp.token()))).toMatchObject({
      status: 'unavailable',
      reason: expect.stringContaining('https://other-issuer.example'),
    });
    expect(idp.hits.jwks).toBe(0);
  });

  it('is unavailable when jwks_uri is plain http on a host not allowlisted', async () => {
    idp.discoveryOverrides = { jwks_uri: idp.jwksUrl.replace('127.0.0.1', 'localhost') };
    expect(await outcome(oidc(), bearer(await idp.token()))).toMatchObject({ status: 'unavailable' });
    expect(idp.hits.jwks).toBe(0);
  });

  it('is unavailable while discovery is down, and recovers without waiting for a cache', async () => {
    const scheme = oidc();
    const token = await idp.token();
    idp.down();
    expect(await outcome(scheme, bearer(token))).toMatchObject({ status: 'unavailable' });
    idp.up();
    idp.failWith(500);
    expect(await outcome(scheme, bearer(token))).toMatchObject({
      status: 'unavailable',
      reason: expect.stringContaining('500'),
    });
    idp.up();
    expectGranted(await outcome(scheme, bearer(token)));
  });

  it('needs azp when the token names several audiences', async () => {
    const audiences = [idp.audience, 'https://userinfo.test'];
    expect(await outcome(oidc(), bearer(await idp.token({ aud: audiences })))).toEqual({
      status: 'invalid',
      reason: 'missing_azp',
    });
    expectGranted(await outcome(oidc(), bearer(await idp.token({ aud: audiences, azp: 'web-client' }))));
  });

  it("refuses an ID token minted for the client the audience names (its nonce), and serves that client's access token", async () => {
    const scheme = oidc({ audience: 'web-client' });
    const idToken = await idp.token({
      aud: 'web-client',
      azp: 'web-client',
      nonce: 'n-0S6_WzA2Mj',
      at_hash: 'HK6E_P6Dh8Y93mRNtsDB1Q',
    });
    expect(await outcome(scheme, bearer(idToken))).toEqual({ status: 'invalid', reason: 'not_an_access_token:nonce' });
    expectGranted(await outcome(scheme, bearer(await idp.token({ aud: 'web-client', scope: 'openid tasks:read' }))));
  });

  it('refuses an http discovery URL not allowlisted, and bad claim options, at construction', () => {
    expect(() => oidc({ allowInsecureHttp: undefined })).toThrow(
      A2aMessages.insecureIdentityProviderUrl('openIdConnectUrl', idp.discoveryUrl),
    );
    expect(() => oidc({ algorithms: ['HS256'] })).toThrow(A2aMessages.jwtHmacWithPublicKey('HS256'));
    expect(() => oidc({ audience: '' })).toThrow(A2aMessages.jwtClaimsRequired());
  });
});
