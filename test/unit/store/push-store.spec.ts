import pg from 'pg';
import { migrateA2aSchema, PostgresTaskStore } from '../../../libs/a2a/src/postgres.js';
import { InMemoryTaskStore } from '../../../libs/a2a/src/store/in-memory-task.store.js';
import type { PushDelivery } from '../../../libs/a2a/src/store/task-push.store.js';
import { dropSchema, postgresReachable, TEST_POSTGRES_URL, testSchemaName } from '../../fixtures/postgres.fixture.js';
import { chunk, config, describePushStoreContract, drain, keys, sleep, status } from './push-store.contract.js';
import { alice, task } from './task-store.contract.js';

describePushStoreContract('InMemoryTaskStore.push', () => new InMemoryTaskStore());

const reachable = await postgresReachable('the PostgreSQL push store suite');
const describeWithPostgres = reachable ? describe : describe.skip;

describeWithPostgres('PostgresTaskStore.push on PostgreSQL', () => {
  const schema = testSchemaName();
  let pool: pg.Pool;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: TEST_POSTGRES_URL, max: 12 });
    await migrateA2aSchema(pool, { schema });
  });
  afterAll(async () => {
    await dropSchema(pool, schema);
    await pool.end();
  });
  // Every case, the contract's included, starts from empty tables.
  beforeEach(async () => {
    await pool.query(
      `TRUNCATE "${schema}".a2a_tasks, "${schema}".a2a_task_events, "${schema}".a2a_message_ids, "${schema}".a2a_task_leases, "${schema}".a2a_push_configs, "${schema}".a2a_push_outbox, "${schema}".a2a_push_dead_letters`,
    );
  });

  const newStore = () => new PostgresTaskStore(pool, { schema, retention: false });

  describePushStoreContract('PostgresTaskStore.push', newStore);

  describe('replicas reading one outbox', () => {
    /** `tasks` tasks, each with `configs` configs and `events` events after the task itself. */
    const fill = async (store: PostgresTaskStore, tasks: number, configs: number, events: number) => {
      const at = '2026-01-01T00:00:00.000Z';
      await Promise.all(
        Array.from({ length: tasks }, async (_, t) => {
          const id = `t-${t}`;
          for (let c = 0; c < configs; c++) await store.push.saveConfig(config(id, `c-${c}`), 10);
          await store.create(task(id, at), 'skill', alice);
          for (let v = 1; v <= events; v++)
            await store.update(id, alice, v, [v % 2 ? status(id, 'TASK_STATE_WORKING', at) : chunk(id, `e-${v}`)]);
        }),
      );
    };

    it('never gives one row to two concurrent claims (SKIP LOCKED), and each pair once', async () => {
      // Two stores on one pool are two replicas: the claims run on separate connections at once.
      const replicas = Array.from({ length: 4 }, newStore);
      await fill(replicas[0], 30, 2, 3);
      for (let round = 0; round < 10; round++) {
        const claims = await Promise.all(
          replicas.flatMap((replica) => [replica.push.claimDue(7, 60_000), replica.push.claimDue(50, 60_000)]),
        );
        const all = claims.flatMap(keys);
        expect(new Set(all).size).toBe(all.length);
        // Each of the 60 pairs has a due head and nothing holds it: every one is given, to exactly one claim.
        expect(all).toHaveLength(60);
        expect(all.every((key) => key.endsWith('@1'))).toBe(true);
        // Let them go again for the next round (as an expired hold does).
        await pool.query(`UPDATE "${schema}".a2a_push_outbox SET claimed_until = NULL`);
      }
    });

    it('delivers every row exactly once, in order per pair, when replicas drain the outbox together', async () => {
      const replicas = Array.from({ length: 4 }, newStore);
      await fill(replicas[0], 20, 2, 5);
      const delivered: string[] = [];
      const work = async (replica: PostgresTaskStore) => {
        for (let idle = 0; idle < 5;) {
          const due = await replica.push.claimDue(5, 60_000);
          if (due.length === 0) {
            idle++;
            await sleep(5);
            continue;
          }
          idle = 0;
          await Promise.all(
            due.map(async (delivery: PushDelivery) => {
              delivered.push(`${delivery.config.taskId}/${delivery.config.id}@${delivery.seq}`);
              await replica.push.delivered(delivery);
            }),
          );
        }
      };
      await Promise.all(replicas.map(work));
      expect(new Set(delivered).size).toBe(delivered.length);
      expect(delivered).toHaveLength(20 * 2 * 6);
      for (let t = 0; t < 20; t++) {
        for (let c = 0; c < 2; c++) {
          const seqs = delivered
            .filter((key) => key.startsWith(`t-${t}/c-${c}@`))
            .map((key) => Number(key.split('@')[1]));
          expect(seqs).toEqual([1, 2, 3, 4, 5, 6]);
        }
      }
      expect(await drain(replicas[1].push)).toEqual([]);
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${schema}".a2a_push_outbox`);
      expect(rows[0].n).toBe(0);
    });

    it('gives a row held by a dead replica to another once the hold has expired, and only then', async () => {
      const [dead, alive] = [newStore(), newStore()];
      await fill(dead, 1, 1, 1);
      expect(keys(await dead.push.claimDue(10, 300))).toEqual(['t-0/c-0@1']);
      expect(await alive.push.claimDue(10, 60_000)).toEqual([]);
      await sleep(450);
      expect(keys(await alive.push.claimDue(10, 60_000))).toEqual(['t-0/c-0@1']);
    });
  });
});
