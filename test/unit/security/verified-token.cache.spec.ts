import { VerifiedTokenCache } from '../../../libs/a2a/src/security/schemes/verified-token.cache.js';

describe('VerifiedTokenCache', () => {
  const t0 = Date.parse('2026-12-01T12:00:00Z');
  const exp = t0 / 1000 + 300;

  it('reuses a verification for at most a minute', () => {
    const cache = new VerifiedTokenCache(30);
    cache.set('token', { sub: 'alice', exp }, t0);
    expect(cache.get('token', t0 + 59_000)).toEqual({ sub: 'alice', exp });
    expect(cache.get('token', t0 + 60_000)).toBeUndefined();
    expect(cache.get('token', t0 + 1_000)).toBeUndefined();
  });

  it("never past the token's expiry plus the skew", () => {
    const cache = new VerifiedTokenCache(30);
    const soon = t0 / 1000 + 10;
    cache.set('token', { sub: 'alice', exp: soon }, t0);
    expect(cache.get('token', (soon + 29) * 1000)).toBeDefined();
    expect(cache.get('token', (soon + 30) * 1000)).toBeUndefined();
  });

  it('forgets the oldest entries beyond 10,000', () => {
    const cache = new VerifiedTokenCache(0);
    for (let i = 0; i <= 10_000; i++) cache.set(`token-${i}`, { exp }, t0);
    expect(cache.get('token-0', t0)).toBeUndefined();
    expect(cache.get('token-1', t0)).toBeDefined();
    expect(cache.get('token-10000', t0)).toBeDefined();
  });

  it('knows only what was set', () => {
    expect(new VerifiedTokenCache(30).get('other', t0)).toBeUndefined();
  });
});
