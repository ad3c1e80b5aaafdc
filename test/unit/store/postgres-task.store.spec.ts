import { jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import pg from 'pg';
import type { TaskScope } from '../../../libs/a2a/src/context/call-context.js';
import { migrateA2aSchema, PostgresTaskStore, postgresTaskStore } from '../../../libs/a2a/src/postgres.js';
import { ConcurrentModificationError } from '../../../libs/a2a/src/store/task.store.js';
import { dropSchema, postgresReachable, TEST_POSTGRES_URL, testSchemaName } from '../../fixtures/postgres.fixture.js';
import { alice, aliceElsewhere, bob, describeTaskStoreContract, query, task, working } from './task-store.contract.js';

const reachable = await postgresReachable('the PostgresTaskStore suite');
const describeWithPostgres = reachable ? describe : describe.skip;

describeWithPostgres('PostgresTaskStore on PostgreSQL', () => {
  const schema = testSchemaName();
  let pool: pg.Pool;
  /** Schemas made by single cases, dropped with the suite's. */
  const extraSchemas: string[] = [];

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 10 });
    await migrateA2aSchema(pool, { schema });
  });
  afterAll(async () => {
    for (const name of [schema, ...extraSchemas]) await dropSchema(pool, name);
    await pool.end();
  });
  // Every case, the contract's included, starts from empty tables.
  beforeEach(async () => {
    await pool.query(
      `TRUNCATE "${schema}".a2a_tasks, "${schema}".a2a_task_events, "${schema}".a2a_message_ids, "${schema}".a2a_task_leases, "${schema}".a2a_push_configs, "${schema}".a2a_push_outbox, "${schema}".a2a_push_dead_letters`,
    );
  });

  const newStore = () => new PostgresTaskStore(pool, { schema });
  const freshSchema = () => {
    const name = testSchemaName();
    extraSchemas.push(name);
    return name;
  };

  describeTaskStoreContract('PostgresTaskStore', (options) => new PostgresTaskStore(pool, { schema, ...options }));

  it('lets exactly one of many concurrent updates with the same expected version win', async () => {
    const store = newStore();
    await store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice);
    const writers = Array.from({ length: 20 }, (_, i) =>
      store.update('t-1', alice, 1, [working(`2026-01-01T00:00:${String(i + 10)}.000Z`)]),
    );
    const outcomes = await Promise.allSettled(writers);
    const won = outcomes.flatMap((outcome, i) =>
      outcome.status === 'fulfilled' ? [{ i, version: outcome.value }] : [],
    );
    expect(won).toEqual([{ i: expect.any(Number), version: 2 }]);
    for (const outcome of outcomes)
      if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(ConcurrentModificationError);
    const stored = await store.get('t-1', alice);
    expect(stored?.version).toBe(2);
    expect(stored?.task.status.timestamp).toBe(`2026-01-01T00:00:${String(won[0].i + 10)}.000Z`);
    const { rows } = await pool.query(`SELECT seq FROM "${schema}".a2a_task_events WHERE task_id = 't-1'`);
    expect(rows).toEqual([{ seq: '2' }]);
  });

  it('lets exactly one of many concurrent creates of one id win', async () => {
    const store = newStore();
    const scopes: TaskScope[] = Array.from({ length: 10 }, (_, i) => ({ tenant: '', owner: `owner-${i}` }));
    const outcomes = await Promise.allSettled(
      scopes.map((scope) => store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', scope)),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
  });

  describe('keyset pagination over 250 tasks with one timestamp', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const ids = Array.from({ length: 250 }, (_, i) => `t-${String(i).padStart(3, '0')}`);
    beforeEach(async () => {
      const store = newStore();
      for (let i = 0; i < ids.length; i += 50) {
        await Promise.all(
          ids
            .slice(i, i + 50)
            .map((id, j) =>
              store.create(task(id, at, 'TASK_STATE_WORKING', (i + j) % 2 ? 'c-odd' : 'c-even'), 's', alice),
            ),
        );
      }
    });

    const pageThrough = async (q: { pageSize: number; contextId?: string }) => {
      const store = newStore();
      const seen: string[] = [];
      const totals = new Set<number>();
      let pageToken: string | undefined;
      do {
        const page = await store.list(query({ ...q, pageToken }), alice);
        expect(page.tasks.length).toBeLessThanOrEqual(q.pageSize);
        seen.push(...page.tasks.map((t) => t.id));
        totals.add(page.totalSize);
        pageToken = page.nextPageToken || undefined;
      } while (pageToken);
      return { seen, totals: [...totals] };
    };

    it('returns every task once, ids descending, with the same totalSize on every page', async () => {
      const { seen, totals } = await pageThrough({ pageSize: 23 });
      expect(seen).toEqual([...ids].reverse());
      expect(totals).toEqual([250]);
    });

    it('does so within one context too', async () => {
      const { seen, totals } = await pageThrough({ pageSize: 10, contextId: 'c-odd' });
      expect(seen).toEqual(ids.filter((_, i) => i % 2).reverse());
      expect(totals).toEqual([125]);
    });

    it('reads a page from the ListTasks index, starting at the cursor: no sort, no offset, no table scan', async () => {
      const store = newStore();
      const first = await store.list(query({ pageSize: 10 }), alice);
      const spy = jest.spyOn(pool, 'query');
      await store.list(query({ pageSize: 10, pageToken: first.nextPageToken }), alice);
      const [pageQuery, params] = spy.mock.calls
        .map((call) => call as unknown as [string, unknown[]])
        .find(([text]) => /ORDER BY/.test(text))!;
      spy.mockRestore();
      const client = await pool.connect();
      try {
        await client.query(`ANALYZE "${schema}".a2a_tasks`);
        // With 250 rows a table scan is cheap; forbid it to see the plan a large table gets.
        await client.query('SET enable_seqscan = off');
        const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${pageQuery}`, params);
        const plan = JSON.stringify(rows[0]['QUERY PLAN']);
        expect(plan).toContain('"Node Type":"Limit"');
        expect(plan).toContain('"Index Name":"a2a_tasks_list"');
        expect(plan).toMatch(/"Index Cond":"[^"]*ROW\(status_ts, id\) </);
        expect(plan).not.toMatch(/"Node Type":"(Sort|Seq Scan|Incremental Sort)"/);
        expect(pageQuery).not.toMatch(/OFFSET/i);
      } finally {
        await client.query('RESET enable_seqscan');
        client.release();
      }
    });
  });

  describe('isolation of two owners in two tenants', () => {
    const scopes: TaskScope[] = [alice, bob, aliceElsewhere, { tenant: 'acme', owner: 'bob' }];
    const idOf = (scope: TaskScope, n: number) => `t-${scope.tenant || 'default'}-${scope.owner}-${n}`;

    beforeEach(async () => {
      const store = newStore();
      for (const scope of scopes)
        for (let n = 0; n < 3; n++) await store.create(task(idOf(scope, n), `2026-01-01T00:00:0${n}.000Z`), 's', scope);
    });

    it.each(scopes.map((scope) => [`${scope.owner}@${scope.tenant || '(default)'}`, scope]))(
      '%s lists and reads only its own tasks',
      async (_label, scope) => {
        const store = newStore();
        const page = await store.list(query(), scope);
        expect(page.tasks.map((t) => t.id)).toEqual([2, 1, 0].map((n) => idOf(scope, n)));
        expect(page.totalSize).toBe(3);
        for (const other of scopes.filter((s) => s !== scope)) {
          expect(await store.get(idOf(other, 0), scope)).toBeUndefined();
          await expect(
            store.update(idOf(other, 0), scope, 1, [working('2026-02-01T00:00:00.000Z')]),
          ).rejects.toBeInstanceOf(ConcurrentModificationError);
        }
      },
    );

    it('leaves a task untouched, and writes no event, when another scope tries to update it', async () => {
      const store = newStore();
      await expect(
        store.update(idOf(alice, 0), aliceElsewhere, 1, [working('2026-02-01T00:00:00.000Z')]),
      ).rejects.toBeInstanceOf(ConcurrentModificationError);
      expect((await store.get(idOf(alice, 0), alice))?.version).toBe(1);
      expect((await pool.query(`SELECT count(*)::int AS n FROM "${schema}".a2a_task_events`)).rows[0].n).toBe(0);
    });
  });

  it('writes one event row per update, in the same commit: seq = the new version, payload = the changes', async () => {
    const store = newStore();
    await store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice);
    const first = [working('2026-01-01T00:00:01.000Z')];
    const second = [
      { artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: { artifactId: 'a', parts: [{ raw: 'aGk=' }] } } },
      working('2026-01-01T00:00:02.000Z'),
    ];
    await store.update('t-1', alice, 1, first);
    await store.update('t-1', alice, 2, second);
    await expect(store.update('t-1', alice, 2, first)).rejects.toBeInstanceOf(ConcurrentModificationError);
    const { rows } = await pool.query(
      `SELECT seq::int, payload FROM "${schema}".a2a_task_events WHERE task_id = 't-1' ORDER BY seq`,
    );
    expect(rows).toEqual([
      { seq: 2, payload: first },
      { seq: 4, payload: second },
    ]);
  });

  it('prunes the events of long-terminal tasks and old message ids, and nothing else; a late resume then gets "truncated"', async () => {
    const store = new PostgresTaskStore(pool, { schema, retention: false });
    const completed = {
      statusUpdate: {
        taskId: 'done',
        contextId: 'c-1',
        status: { state: 'TASK_STATE_COMPLETED' as const, timestamp: '2026-01-01T00:00:02.000Z' },
      },
    };
    await store.create(task('done', '2026-01-01T00:00:00.000Z'), 'skill', alice);
    await store.update('done', alice, 1, [working('2026-01-01T00:00:01.000Z')]);
    await store.update('done', alice, 2, [completed]);
    // Just as old, but still open: a stream of it may still resume.
    await store.create(task('open', '2026-01-01T00:00:00.000Z'), 'skill', alice);
    await store.update('open', alice, 1, [working('2026-01-01T00:00:01.000Z')]);
    await store.claimMessageId(alice, 'm-old', 'done');
    await store.claimMessageId(alice, 'm-new', 'open');
    await pool.query(
      `UPDATE "${schema}".a2a_message_ids SET created_at = now() - interval '2 days' WHERE message_id = 'm-old'`,
    );

    expect(await store.prune(24 * 60 * 60 * 1000)).toEqual({ events: 2, messageIds: 1, pushConfigs: 0 });
    expect(await store.readChanges('done', alice, 1)).toBe('truncated');
    expect(await store.readChanges('open', alice, 1)).toEqual([
      { version: 2, change: working('2026-01-01T00:00:01.000Z') },
    ]);
    expect(await store.get('done', alice)).toMatchObject({
      version: 3,
      task: { status: { state: 'TASK_STATE_COMPLETED' } },
    });
    // The old claim is gone (a send retried that late starts a new task); the recent one holds.
    expect(await store.claimMessageId(alice, 'm-old', 'again')).toBe('again');
    expect(await store.claimMessageId(alice, 'm-new', 'again')).toBe('open');
    expect(await store.prune(24 * 60 * 60 * 1000)).toEqual({ events: 0, messageIds: 0, pushConfigs: 0 });
  });

  it('refuses a janitor that would run nonstop', () => {
    expect(() => new PostgresTaskStore(pool, { schema, retention: { everyMs: 0 } })).toThrow(/retention/);
  });

  it('reads a terminal task from memory once it has it (such a task is never written again); terminalTaskCache: 0 reads the row', async () => {
    const cached = newStore();
    const uncached = new PostgresTaskStore(pool, { schema, terminalTaskCache: 0 });
    await cached.create(task('t-done', '2026-01-01T00:00:00.000Z'), 'skill', alice);
    await cached.update('t-done', alice, 1, [
      { statusUpdate: { taskId: 't-done', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } } },
    ]);
    await cached.create(task('t-open', '2026-01-01T00:00:00.000Z'), 'skill', alice);
    // Edited behind the stores' backs, to tell a read of the row from the copy in memory.
    await pool.query(`UPDATE "${schema}".a2a_tasks SET task = jsonb_set(task::jsonb, '{contextId}', '"edited"')::json`);
    const statements = jest.spyOn(pool, 'query');
    const copy = await cached.get('t-done', alice);
    expect(statements).not.toHaveBeenCalled();
    expect(copy).toMatchObject({
      version: 2,
      skillId: 'skill',
      task: { contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } },
    });
    copy!.task.contextId = 'changed by a caller';
    expect((await cached.get('t-done', alice))?.task.contextId).toBe('c-1');
    expect(await cached.get('t-done', bob)).toBeUndefined();
    expect((await cached.get('t-open', alice))?.task.contextId).toBe('edited');
    expect((await uncached.get('t-done', alice))?.task.contextId).toBe('edited');
    statements.mockRestore();
    expect(() => new PostgresTaskStore(pool, { schema, terminalTaskCache: -1 })).toThrow(RangeError);
  });

  it('keeps the state, version and status timestamp in their columns', async () => {
    const store = newStore();
    await store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice);
    await store.update('t-1', alice, 1, [
      {
        statusUpdate: {
          taskId: 't-1',
          contextId: 'c-1',
          status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-03-04T05:06:07.089Z' },
        },
      },
    ]);
    const { rows } = await pool.query(
      `SELECT state, version::int, status_ts, context_id, skill_id FROM "${schema}".a2a_tasks WHERE id = 't-1'`,
    );
    expect(rows).toEqual([
      { state: 3, version: 2, status_ts: new Date('2026-03-04T05:06:07.089Z'), context_id: 'c-1', skill_id: 'skill' },
    ]);
  });

  it('gives the tasks back to a store on another pool, as after a restart', async () => {
    await newStore().create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice);
    await newStore().update('t-1', alice, 1, [working('2026-01-01T00:00:01.000Z')]);
    const otherPool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 1 });
    try {
      const restarted = new PostgresTaskStore(otherPool, { schema });
      expect(await restarted.get('t-1', alice)).toEqual({
        task: task('t-1', '2026-01-01T00:00:01.000Z'),
        version: 2,
        skillId: 'skill',
      });
    } finally {
      await otherPool.end();
    }
  });

  describe('leases', () => {
    const expire = (taskId: string) =>
      pool.query(`UPDATE "${schema}".a2a_task_leases SET expires_at = now() - interval '1 second' WHERE task_id = $1`, [
        taskId,
      ]);

    it('renews what a replica holds, and no longer what another replica reaped', async () => {
      const leases = newStore().leases;
      await leases.acquire('t-1', alice, 'replica-a', 10_000);
      await leases.acquire('t-2', bob, 'replica-a', 10_000);
      expect((await leases.renew('replica-a', 10_000, ['t-1', 't-2'])).sort()).toEqual(['t-1', 't-2']);
      await expire('t-1');
      expect(await leases.claimExpired(10, 'replica-b', [])).toEqual([
        { taskId: 't-1', scope: alice, replicaId: 'replica-a' },
      ]);
      expect(await leases.renew('replica-a', 10_000, ['t-1', 't-2'])).toEqual(['t-2']);
    });

    it("fences a run's write by its lease: refused once another replica holds it, or nobody does", async () => {
      const store = newStore();
      await store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice);
      await store.leases.acquire('t-1', alice, 'replica-a', 10_000);
      const change = working('2026-01-01T00:00:01.000Z');
      expect(await store.update('t-1', alice, 1, [change], 'replica-a')).toBe(2);
      await expect(store.update('t-1', alice, 2, [change], 'replica-b')).rejects.toBeInstanceOf(
        ConcurrentModificationError,
      );
      await expire('t-1');
      expect(await store.leases.claimExpired(10, 'replica-b', [])).toHaveLength(1);
      await expect(store.update('t-1', alice, 2, [change], 'replica-a')).rejects.toBeInstanceOf(
        ConcurrentModificationError,
      );
      // Writes that are no run's (a cancel, the reaper's) are not fenced.
      expect(await store.update('t-1', alice, 2, [change])).toBe(3);
    });

    it('never gives a replica its own expired leases of runs it has: it renews them instead, unless another reaped them first', async () => {
      const leases = newStore().leases;
      await leases.acquire('t-1', alice, 'replica-a', 10_000);
      await leases.acquire('t-2', alice, 'replica-a', 10_000);
      await expire('t-1');
      await expire('t-2');
      expect(await leases.claimExpired(10, 'replica-a', ['t-1', 't-2'])).toEqual([]);
      expect((await leases.claimExpired(1, 'replica-b', [])).map((lease) => lease.taskId)).toEqual(['t-1']);
      expect(await leases.renew('replica-a', 10_000, ['t-1', 't-2'])).toEqual(['t-2']);
    });

    it('renews only the leases of the runs listed; a replica reaps its own that expired once their run had ended', async () => {
      const leases = newStore().leases;
      await leases.acquire('t-running', alice, 'replica-a', 10_000);
      // Its run ended here while the store was unreachable: neither the settling write nor the release got through.
      await leases.acquire('t-ended', alice, 'replica-a', 10_000);
      expect(await leases.renew('replica-a', 10_000, ['t-running'])).toEqual(['t-running']);
      await expire('t-running');
      await expire('t-ended');
      expect(await leases.claimExpired(10, 'replica-a', ['t-running'])).toEqual([
        { taskId: 't-ended', scope: alice, replicaId: 'replica-a' },
      ]);
      expect(await leases.renew('replica-a', 10_000, ['t-running'])).toEqual(['t-running']);
      expect(await leases.renew('replica-a', 10_000, [])).toEqual([]);
    });

    it('gives each expired lease to one reaper, however many ask at once', async () => {
      const leases = newStore().leases;
      for (let i = 0; i < 20; i++) await leases.acquire(`t-${i}`, alice, 'dead', 1);
      await pool.query(`UPDATE "${schema}".a2a_task_leases SET expires_at = now() - interval '1 second'`);
      const claims = await Promise.all([1, 2, 3, 4].map((n) => leases.claimExpired(50, `reaper-${n}`, [])));
      const ids = claims.flat().map((lease) => lease.taskId);
      expect(ids.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `t-${i}`).sort());
      expect(await leases.claimExpired(50, 'reaper-1', [])).toEqual([]);
    });

    it("hands a lease over at once to other replicas' reapers, restart record and all, past its holder's renewals; only its holder can", async () => {
      const leases = newStore().leases;
      const restart = {
        message: { messageId: 'm-1', role: 'ROLE_USER' as const, parts: [{ text: 'x' }] },
        principal: { id: 'p' },
        tenant: '',
        binding: 'JSONRPC' as const,
        version: '1.0',
        extensions: [],
        attempt: 1,
      };
      await leases.acquire('t-1', alice, 'replica-a', 60_000, restart);
      expect(await leases.handOff('t-1', 'replica-b')).toBe(false);
      expect(await leases.holder('t-1')).toBe('replica-a');
      expect(await leases.handOff('t-1', 'replica-a')).toBe(true);
      expect(await leases.holder('t-1')).toBeUndefined();
      // Its replica goes on renewing the leases of its other runs until it has closed: not this one.
      expect(await leases.renew('replica-a', 60_000, ['t-1'])).toEqual([]);
      expect(await leases.holder('t-1')).toBeUndefined();
      expect(await leases.claimExpired(10, 'replica-b', [])).toEqual([
        { taskId: 't-1', scope: alice, replicaId: 'replica-a (handed over at shutdown)', restart },
      ]);
    });

    it('releases only its own lease; a follow-up on another replica takes the lease over', async () => {
      const leases = newStore().leases;
      await leases.acquire('t-1', alice, 'replica-a', 10_000);
      await leases.release('t-1', 'replica-b');
      expect(await leases.renew('replica-a', 10_000, ['t-1', 't-2'])).toEqual(['t-1']);
      await leases.acquire('t-1', alice, 'replica-b', 10_000);
      expect(await leases.renew('replica-a', 10_000, ['t-1', 't-2'])).toEqual([]);
      await leases.release('t-1', 'replica-b');
      expect(await leases.renew('replica-b', 10_000, ['t-1'])).toEqual([]);
    });

    it("takes the run's lease with a new message id's claim, in one statement, and not with a claim that lost", async () => {
      const store = newStore();
      const lease = {
        replicaId: 'replica-a',
        ttlMs: 10_000,
        restart: {
          message: { messageId: 'm-1', role: 'ROLE_USER' as const, parts: [{ text: 'x' }] },
          principal: { id: 'p' },
          tenant: '',
          binding: 'JSONRPC' as const,
          version: '1.0',
          extensions: [],
          attempt: 1,
        },
      };
      const statements = jest.spyOn(pool, 'query');
      expect(await store.claimMessageId(alice, 'm-1', 't-1', lease)).toBe('t-1');
      expect(statements).toHaveBeenCalledTimes(1);
      statements.mockRestore();
      expect(await store.claimMessageId(alice, 'm-1', 't-2', { ...lease, replicaId: 'replica-b' })).toBe('t-1');
      const { rows } = await pool.query(
        `SELECT task_id, replica_id, attempt, request FROM "${schema}".a2a_task_leases`,
      );
      expect(rows).toEqual([{ task_id: 't-1', replica_id: 'replica-a', attempt: 1, request: lease.restart }]);
    });

    it('drops the lease of a run that replied with a message in the write that keeps the reply', async () => {
      const store = newStore();
      expect(await store.claimMessageId(alice, 'm-1', 't-1', { replicaId: 'replica-a', ttlMs: 10_000 })).toBe('t-1');
      const statements = jest.spyOn(pool, 'query');
      await store.recordReply(alice, 'm-1', 't-1', { messageId: 'r-1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] });
      expect(statements).toHaveBeenCalledTimes(1);
      statements.mockRestore();
      expect(await store.leases.holder('t-1')).toBeUndefined();
      expect((await store.replyTo(alice, 'm-1'))?.messageId).toBe('r-1');
    });

    it('runs the claims and creations of one turn as one statement each, with the outcome of each row its own', async () => {
      const store = newStore();
      await store.claimMessageId(alice, 'm-taken', 't-first');
      await store.create(task('t-exists', '2026-01-01T00:00:00.000Z'), 'skill', bob);
      const statements = jest.spyOn(pool, 'query');
      const lease = { replicaId: 'replica-a', ttlMs: 10_000 };
      const claims = await Promise.all([
        store.claimMessageId(alice, 'm-1', 't-1', lease),
        store.claimMessageId(alice, 'm-2', 't-2'),
        store.claimMessageId(bob, 'm-1', 't-bob', lease),
        store.claimMessageId(alice, 'm-taken', 't-late', lease),
        store.claimMessageId(alice, 'm-1', 't-duplicate', lease),
      ]);
      // The claim statement, then one read of the winner for each claim that lost.
      expect(statements).toHaveBeenCalledTimes(3);
      expect(claims).toEqual(['t-1', 't-2', 't-bob', 't-first', 't-1']);
      statements.mockClear();
      const created = await Promise.allSettled([
        store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice),
        store.create(task('t-2', '2026-01-01T00:00:00.000Z', 'TASK_STATE_COMPLETED'), 'skill', alice),
        store.create(task('t-exists', '2026-01-01T00:00:00.000Z'), 'skill', alice),
        store.create(task('t-2', '2026-01-01T00:00:00.000Z'), 'skill', bob),
      ]);
      expect(statements).toHaveBeenCalledTimes(1);
      statements.mockRestore();
      expect(created.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected']);
      const leases = await pool.query(`SELECT task_id, replica_id FROM "${schema}".a2a_task_leases ORDER BY task_id`);
      // t-2 had no lease; t-bob's stays (no task yet); t-1's stays, as its task is open.
      expect(leases.rows).toEqual([
        { task_id: 't-1', replica_id: 'replica-a' },
        { task_id: 't-bob', replica_id: 'replica-a' },
      ]);
      expect((await store.get('t-2', alice))?.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(await store.get('t-2', bob)).toBeUndefined();
    });

    it('runs each row of a batch that fails on its own, so that only the bad row fails', async () => {
      const store = newStore();
      const outcomes = await Promise.allSettled([
        store.create(task('t-good', '2026-01-01T00:00:00.000Z'), 'skill', alice),
        // A skill id with a NUL cannot be stored as text: the batch fails, then this row alone.
        store.create(task('t-bad', '2026-01-01T00:00:00.000Z'), 'skill\u0000', alice),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected']);
      expect(await store.get('t-good', alice)).toBeDefined();
    });

    it("drops a task's lease, whoever holds it, in the write that leaves the task terminal or interrupted", async () => {
      const store = newStore();
      const leased = async () =>
        (await pool.query(`SELECT task_id FROM "${schema}".a2a_task_leases ORDER BY task_id`)).rows.map(
          (row: { task_id: string }) => row.task_id,
        );
      for (const id of ['t-open', 't-asks', 't-ends', 't-born-done'])
        await store.leases.acquire(id, alice, 'replica-a', 10_000);
      await store.create(task('t-open', '2026-01-01T00:00:00.000Z'), 'skill', alice);
      await store.create(task('t-asks', '2026-01-01T00:00:00.000Z'), 'skill', alice);
      await store.create(task('t-ends', '2026-01-01T00:00:00.000Z'), 'skill', alice);
      await store.create(task('t-born-done', '2026-01-01T00:00:00.000Z', 'TASK_STATE_COMPLETED'), 'skill', alice);
      expect(await leased()).toEqual(['t-asks', 't-ends', 't-open']);
      await store.update('t-open', alice, 1, [working('2026-01-01T00:00:01.000Z')]);
      await store.update('t-asks', alice, 1, [
        { statusUpdate: { taskId: 't-asks', contextId: 'c-1', status: { state: 'TASK_STATE_INPUT_REQUIRED' } } },
      ]);
      // Written by another replica (a cancel): the holder's lease goes too.
      await newStore().update('t-ends', alice, 1, [
        { statusUpdate: { taskId: 't-ends', contextId: 'c-1', status: { state: 'TASK_STATE_CANCELED' } } },
      ]);
      expect(await leased()).toEqual(['t-open']);
    });

    it('keeps odd ids and scopes exact', async () => {
      const leases = newStore().leases;
      const odd = { tenant: 'a\u0000b', owner: 'o\ud800' };
      await leases.acquire('t\u0000\u0001', odd, 'r', 1);
      await pool.query(`UPDATE "${schema}".a2a_task_leases SET expires_at = now() - interval '1 second'`);
      expect(await leases.renew('r', 1, ['t\u0000\u0001'])).toEqual(['t\u0000\u0001']);
      await pool.query(`UPDATE "${schema}".a2a_task_leases SET expires_at = now() - interval '1 second'`);
      expect(await leases.claimExpired(5, 'r', ['t\u0000\u0001'])).toEqual([]);
      expect(await leases.claimExpired(5, 'reaper', [])).toEqual([
        { taskId: 't\u0000\u0001', scope: odd, replicaId: 'r' },
      ]);
    });
  });

  describe('migrations', () => {
    it('are idempotent: a second run applies nothing and keeps the data', async () => {
      const name = freshSchema();
      expect(await migrateA2aSchema(pool, { schema: name })).toEqual([1, 2, 3, 4, 5, 6]);
      await new PostgresTaskStore(pool, { schema: name }).create(
        task('t-1', '2026-01-01T00:00:00.000Z'),
        'skill',
        alice,
      );
      expect(await migrateA2aSchema(pool, { schema: name })).toEqual([]);
      expect(await new PostgresTaskStore(pool, { schema: name }).get('t-1', alice)).toBeDefined();
      const { rows } = await pool.query(`SELECT version, name FROM "${name}".a2a_schema_migrations ORDER BY version`);
      expect(rows.map((row: { version: number }) => row.version)).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it('can run from several replicas at once: one applies them, the others wait and apply nothing', async () => {
      const name = freshSchema();
      const runs = await Promise.all([1, 2, 3].map(() => migrateA2aSchema(pool, { schema: name })));
      expect(runs.sort((a, b) => b.length - a.length)).toEqual([[1, 2, 3, 4, 5, 6], [], []]);
    });

    it('refuse a schema name that is not a plain identifier', async () => {
      await expect(migrateA2aSchema(pool, { schema: 'a2a"; DROP TABLE x; --' })).rejects.toThrow(RangeError);
      expect(() => new PostgresTaskStore(pool, { schema: 'a-b' })).toThrow(RangeError);
    });
  });

  describe('postgresTaskStore()', () => {
    it('migrates at boot when asked, and ends the pool it created on close()', async () => {
      const name = freshSchema();
      const store = await postgresTaskStore({ connectionString: TEST_POSTGRES_URL, schema: name, migrate: true });
      await store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice);
      expect((await store.get('t-1', alice))?.version).toBe(1);
      await store.onApplicationShutdown();
      await expect(store.get('t-1', alice)).rejects.toThrow(/after calling end on the pool/);
    });

    it('leaves a pool it was given open', async () => {
      const store = await postgresTaskStore({ pool, schema });
      await store.close();
      expect(await store.get('t-1', alice)).toBeUndefined();
    });

    it('ends the pool it created when the migration fails', async () => {
      await expect(
        postgresTaskStore({
          connectionString: TEST_POSTGRES_URL.replace(/\/[^/]*$/, '/no_such_database_a2a'),
          migrate: true,
        }),
      ).rejects.toThrow(/no_such_database_a2a/);
    });
  });

  describe('npm run db:migrate (the built CLI)', () => {
    const cli = 'dist/libs/a2a/src/postgres/migrate.cli.js';
    const run = (env: Record<string, string>) =>
      promisify(execFile)(process.execPath, [cli], { env: { PATH: process.env.PATH ?? '', ...env } }).then(
        ({ stdout }) => ({ code: 0, output: stdout }),
        (error: { code: number; stdout: string; stderr: string }) => ({
          code: error.code,
          output: error.stdout + error.stderr,
        }),
      );

    beforeAll(() => {
      if (!existsSync(cli)) throw new Error(`${cli} is missing: run "npm run build" first (npm test does)`);
    });

    it('migrates the schema named by A2A_POSTGRES_SCHEMA, then finds it up to date', async () => {
      const name = freshSchema();
      const env = { A2A_POSTGRES_URL: TEST_POSTGRES_URL, A2A_POSTGRES_SCHEMA: name };
      expect(await run(env)).toEqual({ code: 0, output: `Schema "${name}": applied migrations 1, 2, 3, 4, 5, 6\n` });
      expect(await run(env)).toEqual({ code: 0, output: `Schema "${name}" is up to date\n` });
    });

    it('exits with 2 and says what is missing without A2A_POSTGRES_URL', async () => {
      expect(await run({})).toEqual({ code: 2, output: expect.stringContaining('A2A_POSTGRES_URL is not set') });
    });
  });
});
