import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { LeaseKeeper } from '../../../libs/a2a/src/engine/lease.keeper.js';
import type { ExpiredLease, TaskLeases } from '../../../libs/a2a/src/store/task-leases.js';

/** The engine's side of leases, against a scripted store. */
function fakeLeases(): TaskLeases & { rows: Map<string, string>; expired: ExpiredLease[] } {
  const rows = new Map<string, string>();
  const expired: ExpiredLease[] = [];
  return {
    rows,
    expired,
    acquire: async (taskId, _scope, replicaId) => void rows.set(taskId, replicaId),
    renew: async (replicaId, _ttlMs, taskIds) => taskIds.filter((taskId) => rows.get(taskId) === replicaId),
    release: async (taskId, replicaId) => void (rows.get(taskId) === replicaId && rows.delete(taskId)),
    holder: async (taskId) => rows.get(taskId),
    // As the store does: a replica's own expired leases of runs it has are not its to reap.
    claimExpired: async (_limit, replicaId, running) =>
      expired.splice(0).filter((lease) => lease.replicaId !== replicaId || !running.includes(lease.taskId)),
  };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));
const scope = { tenant: '', owner: 'alice' };

describe('LeaseKeeper', () => {
  afterEach(() => jest.useRealTimers());

  it('renews every third of the TTL and reports a granted lease another replica took away', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    const leases = fakeLeases();
    const lost: string[] = [];
    const keeper = new LeaseKeeper(leases, 900, 300, new Logger('test'));
    keeper.start({ lost: (taskId) => lost.push(taskId), reap: async () => undefined });
    keeper.acquire('t-1', scope);
    keeper.acquire('t-2', scope);
    await flush();
    leases.rows.set('t-2', 'replica-b');
    jest.advanceTimersByTime(300);
    await flush();
    expect(lost).toEqual(['t-2']);
    keeper.stop();
  });

  it('gives leases back when runs end, after their acquisition', async () => {
    const leases = fakeLeases();
    const keeper = new LeaseKeeper(leases, 900, 300, new Logger('test'));
    keeper.acquire('t-1', scope);
    keeper.release('t-1');
    await flush();
    expect(leases.rows.size).toBe(0);
  });

  it('stops reaping once its replica shuts down, and goes on renewing the leases of its runs', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    const leases = fakeLeases();
    const reaped: string[] = [];
    const keeper = new LeaseKeeper(leases, 900, 300, new Logger('test'));
    const renew = jest.spyOn(leases, 'renew');
    keeper.start({ lost: () => undefined, reap: async (lease) => void reaped.push(lease.taskId) });
    keeper.acquire('t-1', scope);
    keeper.stopReaping();
    leases.expired.push({ taskId: 't-dead', scope, replicaId: 'replica-b' });
    jest.advanceTimersByTime(900);
    await flush();
    expect(reaped).toEqual([]);
    expect(renew).toHaveBeenCalledTimes(3);
    keeper.stop();
  });

  it("hands a granted lease over once: no longer renewed nor released by this replica; false without the store's support", async () => {
    const leases = fakeLeases();
    const handedOff: string[] = [];
    leases.handOff = async (taskId, replicaId) => leases.rows.get(taskId) === replicaId && handedOff.push(taskId) > 0;
    const keeper = new LeaseKeeper(leases, 900, 300, new Logger('test'));
    keeper.acquire('t-1', scope);
    expect(await keeper.handOff('t-1')).toBe(true);
    expect(await keeper.handOff('t-1')).toBe(false);
    await keeper.release('t-1');
    expect(handedOff).toEqual(['t-1']);
    expect(leases.rows.get('t-1')).toBe(keeper.replicaId);
    expect(keeper.holds('t-1')).toBe(false);
    delete leases.handOff;
    keeper.acquire('t-2', scope);
    expect(await keeper.handOff('t-2')).toBe(false);
  });

  it('tells whether the store granted a lease: a run whose lease was refused is not fenced by it', async () => {
    const leases = fakeLeases();
    const keeper = new LeaseKeeper(leases, 900, 300, { warn: () => undefined } as unknown as Logger);
    keeper.acquire('t-granted', scope);
    leases.acquire = async () => {
      throw new Error('PostgreSQL is down');
    };
    keeper.acquire('t-refused', scope);
    expect(await keeper.acquired('t-granted')).toBe(true);
    expect(await keeper.acquired('t-refused')).toBe(false);
    // Forgotten before the settling write that drops it: still this replica's until that write.
    await keeper.releasedByWrite('t-granted');
    expect(await keeper.acquired('t-granted')).toBe(true);
  });

  it("hands the reaper every expired lease but this replica's of runs it has", async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    const leases = fakeLeases();
    const reaped: string[] = [];
    const keeper = new LeaseKeeper(leases, 900, 300, new Logger('test'));
    keeper.start({ lost: () => undefined, reap: async (lease) => void reaped.push(lease.taskId) });
    keeper.acquire('t-running', scope);
    leases.expired.push(
      { taskId: 't-9', scope, replicaId: 'dead' },
      { taskId: 't-running', scope, replicaId: keeper.replicaId },
      { taskId: 't-ended', scope, replicaId: keeper.replicaId },
    );
    jest.advanceTimersByTime(300);
    await flush();
    expect(reaped).toEqual(['t-9', 't-ended']);
    keeper.stop();
  });

  it('renews only the leases of runs it has: one whose run ended without its release (the store was down) expires', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    const leases = fakeLeases();
    const renew = jest.spyOn(leases, 'renew');
    const keeper = new LeaseKeeper(leases, 900, 300, { warn: () => undefined } as unknown as Logger);
    keeper.start({ lost: () => undefined, reap: async () => undefined });
    jest.advanceTimersByTime(300);
    await flush();
    // No runs, no statement.
    expect(renew).not.toHaveBeenCalled();
    keeper.acquire('t-ended', scope);
    keeper.acquire('t-running', scope);
    await flush();
    const release = leases.release;
    leases.release = async () => {
      throw new Error('PostgreSQL is down');
    };
    await keeper.release('t-ended');
    leases.release = release;
    expect(leases.rows.get('t-ended')).toBe(keeper.replicaId);
    jest.advanceTimersByTime(300);
    await flush();
    expect(renew.mock.calls.map(([, , taskIds]) => taskIds)).toEqual([['t-running']]);
    keeper.stop();
  });
});
