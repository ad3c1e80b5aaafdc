import { PushRetryPolicy } from '../../../libs/a2a/src/push/push-retry.policy.js';
import { InvalidPushOptionsError } from '../../../libs/a2a/src/push/push.errors.js';
import { parseRetryAfter } from '../../../libs/a2a/src/push/retry-after.header.js';

const top = () => 0.999_999_999;
const bottom = () => 0;

describe('PushRetryPolicy (spec §4.3.3, §13.2: exponential backoff)', () => {
  const policy = new PushRetryPolicy();

  it('defaults to 8 attempts, 1 s base, 10 min cap', () => {
    expect(policy).toMatchObject({ maxAttempts: 8, baseDelayMs: 1_000, maxDelayMs: 600_000 });
    expect(policy.hasAttemptsLeft(7)).toBe(true);
    expect(policy.hasAttemptsLeft(8)).toBe(false);
  });

  it.each([
    [0, 1_000],
    [1, 2_000],
    [2, 4_000],
    [5, 32_000],
    [9, 512_000],
    [10, 600_000],
    [60, 600_000],
    [10_000, 600_000],
  ])('after failure %i, waits less than min(cap, 1 s·2^n) = %i ms', (attempt, ceiling) => {
    expect(policy.nextDelayMs(attempt, undefined, top)).toBe(ceiling - 1);
    expect(policy.nextDelayMs(attempt, undefined, bottom)).toBe(0);
    expect(policy.nextDelayMs(attempt, undefined, () => 0.5)).toBe(Math.floor(ceiling / 2));
  });

  it('spreads delays over the whole window (full jitter)', () => {
    const delays = Array.from({ length: 2_000 }, () => policy.nextDelayMs(3));
    expect(Math.min(...delays)).toBeLessThan(800);
    expect(Math.max(...delays)).toBeGreaterThan(7_200);
    expect(Math.max(...delays)).toBeLessThan(8_000);
  });

  it('honours Retry-After as a minimum, up to the cap', () => {
    expect(policy.nextDelayMs(0, 30_000, bottom)).toBe(30_000);
    expect(policy.nextDelayMs(9, 30_000, top)).toBe(511_999);
    expect(policy.nextDelayMs(0, 3_600_000, bottom)).toBe(600_000);
    expect(policy.nextDelayMs(0, 0, bottom)).toBe(0);
    expect(policy.nextDelayMs(0, Number.NaN, bottom)).toBe(0);
  });

  it('tolerates odd inputs: a negative attempt, a random function out of range', () => {
    expect(policy.nextDelayMs(-3, undefined, top)).toBe(999);
    expect(policy.nextDelayMs(0, undefined, () => 7)).toBe(0);
    expect(policy.nextDelayMs(0, undefined, () => Number.NaN)).toBe(0);
  });

  it('takes its base, cap and attempts from the options', () => {
    const fast = new PushRetryPolicy({ baseDelayMs: 10, maxDelayMs: 50, maxAttempts: 3 });
    expect([0, 1, 2, 3].map((n) => fast.nextDelayMs(n, undefined, top))).toEqual([9, 19, 39, 49]);
    expect(fast.hasAttemptsLeft(2)).toBe(true);
    expect(fast.hasAttemptsLeft(3)).toBe(false);
  });

  it.each([{ maxAttempts: 0 }, { baseDelayMs: -1 }, { maxDelayMs: 1.5 }, { baseDelayMs: 100, maxDelayMs: 10 }])(
    'refuses %p at bootstrap',
    (options) => {
      expect(() => new PushRetryPolicy(options)).toThrow(InvalidPushOptionsError);
    },
  );
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-12-01T12:00:00Z');

  it.each<[string | string[] | undefined, number | undefined]>([
    ['120', 120_000],
    [' 0 ', 0],
    [['7', '9'], 7_000],
    ['Tue, 01 Dec 2026 12:01:30 GMT', 90_000],
    ['Tuesday, 01-Dec-26 12:00:10 GMT', 10_000],
    ['Tue Dec  1 12:00:05 2026', 5_000],
    ['Tue, 01 Dec 2026 11:00:00 GMT', 0],
    ['-5', undefined],
    ['1.5', undefined],
    ['soon', undefined],
    ['Tue, 01 Dec 2026 12:01:30', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('reads %p as %p ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });

  it('keeps absurd values finite', () => {
    expect(parseRetryAfter('9'.repeat(400), now)).toBe(Number.MAX_SAFE_INTEGER);
  });
});
