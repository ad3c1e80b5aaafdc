import type { A2aPushOptions } from '../../../libs/a2a/src/push/a2a-push.options.js';
import { A2aPushDispatcher } from '../../../libs/a2a/src/push/push.dispatcher.js';
import { checkA2aOptions } from '../../../libs/a2a/src/a2a-options.check.js';
import { InvalidA2aOptionsError } from '../../../libs/a2a/src/errors/invalid-a2a-options.error.js';
import { PushCircuitBreaker } from '../../../libs/a2a/src/push/push-circuit.breaker.js';
import { PushDeliveryLimiter } from '../../../libs/a2a/src/push/push-delivery.limiter.js';
import { InMemoryTaskStore } from '../../../libs/a2a/src/store/in-memory-task.store.js';

describe('PushDeliveryLimiter (push.maxInFlightPerHost, push.maxInFlightPerOwner)', () => {
  it('lets at most perHost deliveries go to one destination, whatever their owners', () => {
    const limiter = new PushDeliveryLimiter(2, 10);
    expect(limiter.tryAcquire('tarpit:443', 'a')).toBe(true);
    expect(limiter.tryAcquire('tarpit:443', 'b')).toBe(true);
    expect(limiter.tryAcquire('tarpit:443', 'c')).toBe(false);
    expect(limiter.tryAcquire('healthy:443', 'c')).toBe(true);
    limiter.release('tarpit:443', 'a');
    expect(limiter.tryAcquire('tarpit:443', 'c')).toBe(true);
  });

  it('lets at most perOwner deliveries run for one owner, whatever their destinations', () => {
    const limiter = new PushDeliveryLimiter(10, 2);
    expect(limiter.tryAcquire('one:443', 'flooder')).toBe(true);
    expect(limiter.tryAcquire('two:443', 'flooder')).toBe(true);
    expect(limiter.tryAcquire('three:443', 'flooder')).toBe(false);
    expect(limiter.tryAcquire('three:443', 'other')).toBe(true);
    limiter.release('one:443', 'flooder');
    expect(limiter.tryAcquire('three:443', 'flooder')).toBe(true);
  });

  it('takes nothing when refused: a refusal needs no release', () => {
    const limiter = new PushDeliveryLimiter(1, 1);
    expect(limiter.tryAcquire('h:443', 'a')).toBe(true);
    expect(limiter.tryAcquire('other:443', 'a')).toBe(false);
    // The refused call took no slot of other:443.
    expect(limiter.tryAcquire('other:443', 'b')).toBe(true);
  });
});

describe('PushCircuitBreaker (push.circuitBreaker)', () => {
  let now = 1_000_000;
  const clock = () => now;
  const breaker = () => new PushCircuitBreaker({ failures: 3, openMs: 60_000 }, clock);

  it('opens after `failures` unreachable deliveries in a row, and only then', () => {
    const circuits = breaker();
    expect(circuits.settled('h', 'unreachable')).toBeUndefined();
    expect(circuits.settled('h', 'unreachable')).toBeUndefined();
    expect(circuits.blockedUntil('h')).toBeUndefined();
    expect(circuits.settled('h', 'unreachable')).toBe('opened');
    expect(circuits.blockedUntil('h')).toBe(now + 60_000);
    // Other destinations are not affected.
    expect(circuits.blockedUntil('other')).toBeUndefined();
  });

  it('counts consecutive failures only: an answer, any status, starts again', () => {
    const circuits = breaker();
    circuits.settled('h', 'unreachable');
    circuits.settled('h', 'unreachable');
    expect(circuits.settled('h', 'answered')).toBeUndefined();
    circuits.settled('h', 'unreachable');
    expect(circuits.settled('h', 'unreachable')).toBeUndefined();
    expect(circuits.blockedUntil('h')).toBeUndefined();
  });

  it('half-open after openMs: one trial decides; an answer closes, another failure opens it again', () => {
    const circuits = breaker();
    for (let i = 0; i < 3; i++) circuits.settled('h', 'unreachable');
    now += 60_000;
    expect(circuits.blockedUntil('h')).toBeUndefined();
    // Only the one trial: the others look again soon.
    expect(circuits.blockedUntil('h')).toBeGreaterThan(now);
    expect(circuits.settled('h', 'unreachable')).toBeUndefined();
    expect(circuits.blockedUntil('h')).toBe(now + 60_000);
    now += 60_000;
    expect(circuits.blockedUntil('h')).toBeUndefined();
    expect(circuits.settled('h', 'answered')).toBe('closed');
    expect(circuits.blockedUntil('h')).toBeUndefined();
    expect(circuits.blockedUntil('h')).toBeUndefined();
  });

  it('a trial that neither reached nor failed to reach the destination lets the next one try', () => {
    const circuits = breaker();
    for (let i = 0; i < 3; i++) circuits.settled('h', 'unreachable');
    now += 60_000;
    expect(circuits.blockedUntil('h')).toBeUndefined();
    expect(circuits.settled('h', 'neither')).toBeUndefined();
    expect(circuits.blockedUntil('h')).toBeUndefined();
  });
});

describe('the fairness options', () => {
  const dispatcher = (push: A2aPushOptions) =>
    new A2aPushDispatcher(new InMemoryTaskStore(), { card: { name: 'a', description: 'b' }, push }, undefined as never);

  it.each<A2aPushOptions>([
    { maxInFlightPerHost: 0 },
    { maxInFlightPerOwner: 1.5 },
    { circuitBreaker: { failures: 0 } },
    { circuitBreaker: { openMs: -1 } },
  ])('are refused by the option check at bootstrap when not positive integers: %j', (push) => {
    expect(() => checkA2aOptions({ card: { name: 'a', description: 'b' }, push }, false)).toThrow(
      InvalidA2aOptionsError,
    );
  });

  it('take their defaults, or circuitBreaker: false', () => {
    expect(() => dispatcher({})).not.toThrow();
    expect(() => dispatcher({ circuitBreaker: false, maxInFlightPerHost: 1, maxInFlightPerOwner: 1 })).not.toThrow();
  });
});
