import type { TaskScope } from '../../../libs/a2a/src/context/call-context.js';
import type { TaskChange } from '../../../libs/a2a/src/task/task-reducer.js';
import type {
  PushDeadLetter,
  PushDelivery,
  StoredPushConfig,
  TaskPushStore,
} from '../../../libs/a2a/src/store/task-push.store.js';
import type { TaskStore } from '../../../libs/a2a/src/store/task.store.js';
import { alice, aliceElsewhere, bob, task } from './task-store.contract.js';

/**
 * What every TaskPushStore does, whatever keeps the configs and the outbox: one suite, run against each task store
 * that has one (`TaskStore.push`) by its own spec. The outbox is filled as the engine fills it, through the task
 * store's create and update. `makeStore` is called before each case and must give a store that holds nothing.
 */

export type PushingTaskStore = TaskStore & { push: TaskPushStore };

/** A hold no case outlives. */
const LONG_HOLD_MS = 60_000;
/** A hold a case waits out. */
const SHORT_HOLD_MS = 100;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const config = (
  taskId: string,
  id: string,
  scope: TaskScope = alice,
  url = `https://hooks.example.com/${id}`,
): StoredPushConfig => ({
  taskId,
  id,
  scope,
  url,
  secrets: `sealed:${id}`,
});

export const status = (
  taskId: string,
  state: 'TASK_STATE_WORKING' | 'TASK_STATE_COMPLETED',
  at: string,
): TaskChange => ({
  statusUpdate: { taskId, contextId: 'c-1', status: { state, timestamp: at } },
});

export const chunk = (taskId: string, text: string): TaskChange => ({
  artifactUpdate: { taskId, contextId: 'c-1', artifact: { artifactId: 'a-1', parts: [{ text }] }, append: true },
});

export const note = (text: string): TaskChange => ({
  historyMessage: { messageId: `m-${text}`, role: 'ROLE_USER', parts: [{ text }] },
});

/** `<configId>@<seq>` of each delivery, sorted: what a claim gave, comparable across stores. */
export const keys = (deliveries: PushDelivery[]) =>
  deliveries.map((d) => `${d.config.taskId}/${d.config.id}@${d.seq}`).sort();

/** Claims and acknowledges until nothing is due: the `<task>/<config>@<seq>` delivered, in the order each pair got them. */
export async function drain(push: TaskPushStore): Promise<string[]> {
  const order: string[] = [];
  for (let round = 0; round < 1000; round++) {
    const due = await push.claimDue(100, LONG_HOLD_MS);
    if (due.length === 0) return order;
    for (const delivery of due) {
      order.push(`${delivery.config.taskId}/${delivery.config.id}@${delivery.seq}`);
      await push.delivered(delivery);
    }
  }
  throw new Error('the outbox never emptied');
}

/** The subsequence of `order` for one pair. */
const ofPair = (order: string[], pair: string) =>
  order.filter((key) => key.startsWith(`${pair}@`)).map((key) => Number(key.split('@')[1]));

const letter = (delivery: PushDelivery, lastError: string, extra: Partial<PushDeadLetter> = {}): PushDeadLetter => ({
  tenant: delivery.config.scope.tenant,
  taskId: delivery.config.taskId,
  configId: delivery.config.id,
  eventId: `${delivery.config.taskId}:${delivery.seq}`,
  attempts: delivery.attempts + 1,
  firstAt: new Date(delivery.firstAt).toISOString(),
  lastAt: new Date().toISOString(),
  lastError,
  ...extra,
});

export function describePushStoreContract(
  name: string,
  makeStore: () => PushingTaskStore | Promise<PushingTaskStore>,
): void {
  describe(`${name} (TaskPushStore contract)`, () => {
    let store: PushingTaskStore;
    let push: TaskPushStore;
    beforeEach(async () => {
      store = await makeStore();
      push = store.push;
    });

    const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;

    describe('configs', () => {
      beforeEach(async () => {
        await store.create(task('t-1', at(0)), 'skill', alice);
      });

      it('saves a config and gives it back to its owner, as saved', async () => {
        expect(await push.saveConfig(config('t-1', 'c-a'), 10)).toBe(true);
        expect(await push.getConfig('t-1', 'c-a', alice)).toEqual(config('t-1', 'c-a'));
        expect(await push.listConfigs('t-1', alice)).toEqual([config('t-1', 'c-a')]);
        expect(await push.getConfig('t-1', 'c-other', alice)).toBeUndefined();
        expect(await push.listConfigs('t-other', alice)).toEqual([]);
      });

      it("lists a task's configs oldest first; replacing one (same id) changes its url and secrets, not its place", async () => {
        for (const id of ['c-b', 'c-a', 'c-c']) expect(await push.saveConfig(config('t-1', id), 10)).toBe(true);
        const replaced = { ...config('t-1', 'c-a'), url: 'https://hooks.example.com/moved', secrets: 'sealed:new' };
        expect(await push.saveConfig(replaced, 10)).toBe(true);
        expect(await push.getConfig('t-1', 'c-a', alice)).toEqual(replaced);
        expect(await push.listConfigs('t-1', alice)).toEqual([config('t-1', 'c-b'), replaced, config('t-1', 'c-c')]);
      });

      it('caps the configs of one task; replacing one at the cap is allowed; another task has its own cap', async () => {
        expect(await push.saveConfig(config('t-1', 'c-1'), 2)).toBe(true);
        expect(await push.saveConfig(config('t-1', 'c-2'), 2)).toBe(true);
        expect(await push.saveConfig(config('t-1', 'c-3'), 2)).toBe(false);
        expect(await push.getConfig('t-1', 'c-3', alice)).toBeUndefined();
        expect(await push.saveConfig({ ...config('t-1', 'c-2'), url: 'https://hooks.example.com/again' }, 2)).toBe(
          true,
        );
        expect((await push.listConfigs('t-1', alice)).map((c) => [c.id, c.url])).toEqual([
          ['c-1', 'https://hooks.example.com/c-1'],
          ['c-2', 'https://hooks.example.com/again'],
        ]);
        expect(await push.saveConfig(config('t-2', 'c-3'), 2)).toBe(true);
        // Once one is deleted there is room again.
        await push.deleteConfig('t-1', 'c-1', alice);
        expect(await push.saveConfig(config('t-1', 'c-3'), 2)).toBe(true);
      });

      it.each([
        ['another owner', bob],
        ['the same owner in another tenant', aliceElsewhere],
      ])('shows nothing to %s, who can neither delete nor replace it', async (_label, scope) => {
        await push.saveConfig(config('t-1', 'c-a'), 10);
        expect(await push.getConfig('t-1', 'c-a', scope)).toBeUndefined();
        expect(await push.listConfigs('t-1', scope)).toEqual([]);
        await push.deleteConfig('t-1', 'c-a', scope);
        expect(await push.getConfig('t-1', 'c-a', alice)).toEqual(config('t-1', 'c-a'));
        expect(await push.saveConfig(config('t-1', 'c-a', scope, 'https://attacker.example.com/'), 10)).toBe(false);
        expect(await push.getConfig('t-1', 'c-a', alice)).toEqual(config('t-1', 'c-a'));
        expect(await push.getConfig('t-1', 'c-a', scope)).toBeUndefined();
      });

      it('deletes a config; deleting it again, or one that never was, is no error', async () => {
        await push.saveConfig(config('t-1', 'c-a'), 10);
        await push.saveConfig(config('t-1', 'c-b'), 10);
        await push.deleteConfig('t-1', 'c-a', alice);
        expect(await push.getConfig('t-1', 'c-a', alice)).toBeUndefined();
        expect(await push.listConfigs('t-1', alice)).toEqual([config('t-1', 'c-b')]);
        await expect(push.deleteConfig('t-1', 'c-a', alice)).resolves.toBeUndefined();
        await expect(push.deleteConfig('t-none', 'c-none', alice)).resolves.toBeUndefined();
      });
    });

    describe('the outbox', () => {
      it('enqueues the task itself as seq 1 when a config was saved before the task existed (an inline config)', async () => {
        await push.saveConfig(config('t-1', 'c-a'), 10);
        const before = Date.now();
        const created = await store.create(task('t-1', at(0)), 'skill', alice);
        const due = await push.claimDue(10, LONG_HOLD_MS);
        expect(due).toEqual([
          {
            config: config('t-1', 'c-a'),
            seq: 1,
            payload: { task: created.task },
            attempts: 0,
            firstAt: expect.any(Number),
          },
        ]);
        // The database's clock may differ from this process's by a little.
        expect(due[0].firstAt).toBeGreaterThanOrEqual(before - 1000);
        expect(due[0].firstAt).toBeLessThanOrEqual(Date.now() + 1000);
      });

      it('enqueues nothing for a task without configs, nor for a refused create or update', async () => {
        await store.create(task('t-1', at(0)), 'skill', alice);
        await store.update('t-1', alice, 1, [status('t-1', 'TASK_STATE_WORKING', at(1))]);
        expect(await push.claimDue(10, LONG_HOLD_MS)).toEqual([]);
        await push.saveConfig(config('t-1', 'c-a'), 10);
        // The id is taken (by the same scope or another): the create fails and its task is not enqueued.
        await expect(store.create(task('t-1', at(2)), 'skill', bob)).rejects.toThrow();
        // A stale version: nothing is written, nothing enqueued.
        await expect(store.update('t-1', alice, 1, [status('t-1', 'TASK_STATE_WORKING', at(3))])).rejects.toThrow();
        // Another scope's update of the task is refused as well.
        await expect(store.update('t-1', bob, 2, [status('t-1', 'TASK_STATE_WORKING', at(3))])).rejects.toThrow();
        expect(await push.claimDue(10, LONG_HOLD_MS)).toEqual([]);
      });

      it('enqueues one row per (config, stream event) with the version each event produced, none for a history message', async () => {
        await store.create(task('t-1', at(0)), 'skill', alice);
        await push.saveConfig(config('t-1', 'c-a'), 10);
        await push.saveConfig(config('t-1', 'c-b'), 10);
        // v2 (status), v3 (chunk); then v4 a history message only: no event; then v5 history, v6 chunk, v7 status.
        const changes = [status('t-1', 'TASK_STATE_WORKING', at(1)), chunk('t-1', 'one')];
        expect(await store.update('t-1', alice, 1, changes)).toBe(3);
        expect(await store.update('t-1', alice, 3, [note('aside')])).toBe(4);
        const later = [note('more'), chunk('t-1', 'two'), status('t-1', 'TASK_STATE_COMPLETED', at(2))];
        expect(await store.update('t-1', alice, 4, later)).toBe(7);

        const payloads = new Map<string, unknown>();
        const order: string[] = [];
        for (let round = 0; round < 20; round++) {
          const due = await push.claimDue(10, LONG_HOLD_MS);
          if (due.length === 0) break;
          for (const delivery of due) {
            order.push(`${delivery.config.id}@${delivery.seq}`);
            payloads.set(`${delivery.config.id}@${delivery.seq}`, delivery.payload);
            expect(delivery.attempts).toBe(0);
            await push.delivered(delivery);
          }
        }
        const seqsOf = (id: string) =>
          order.filter((key) => key.startsWith(`${id}@`)).map((key) => Number(key.split('@')[1]));
        expect(seqsOf('c-a')).toEqual([2, 3, 6, 7]);
        expect(seqsOf('c-b')).toEqual([2, 3, 6, 7]);
        expect(order).toHaveLength(8);
        for (const id of ['c-a', 'c-b']) {
          expect(payloads.get(`${id}@2`)).toEqual(changes[0]);
          expect(payloads.get(`${id}@3`)).toEqual(changes[1]);
          expect(payloads.get(`${id}@6`)).toEqual(later[1]);
          expect(payloads.get(`${id}@7`)).toEqual(later[2]);
        }
      });

      it('gives a config only the events committed after it was saved', async () => {
        await store.create(task('t-1', at(0)), 'skill', alice);
        await store.update('t-1', alice, 1, [status('t-1', 'TASK_STATE_WORKING', at(1))]);
        await push.saveConfig(config('t-1', 'c-a'), 10);
        await store.update('t-1', alice, 2, [chunk('t-1', 'one')]);
        expect(await drain(push)).toEqual(['t-1/c-a@3']);
      });

      it('keeps ids, scopes and payloads with any character (NUL, U+0001, a lone surrogate, astral) as given, through the whole queue', async () => {
        const odd = 't-\u0000\u0001x\u{1F600}';
        const scope: TaskScope = { tenant: 'te\u0000n', owner: 'o\u0001wner' };
        // The url and the sealed secrets never hold a control character (the webhook rules refuse one; sealing gives base64).
        const saved = {
          ...config(odd, 'c-\u0000\u0001', scope),
          url: 'https://hooks.example.com/odd',
          secrets: 'sealed:odd',
        };
        expect(await push.saveConfig(saved, 10)).toBe(true);
        expect(await push.getConfig(odd, 'c-\u0000\u0001', scope)).toEqual(saved);
        expect(await push.listConfigs(odd, scope)).toEqual([saved]);
        expect(await push.getConfig(odd, 'c-\u0000\u0001', { tenant: 'te', owner: 'o\u0001wner' })).toBeUndefined();
        await store.create(task(odd, at(0)), 'skill', scope);
        const text = 'nul \u0000 soh \u0001 lone \ud800 emoji \u{1F600}';
        await store.update(odd, scope, 1, [chunk(odd, text)]);
        const first = await push.claimDue(10, LONG_HOLD_MS);
        expect(first.map((d) => [d.config, d.seq])).toEqual([[saved, 1]]);
        await push.delivered(first[0]);
        const second = await push.claimDue(10, LONG_HOLD_MS);
        expect(second.map((d) => [d.config, d.seq, d.payload])).toEqual([[saved, 2, chunk(odd, text)]]);
        const given = letter(second[0], 'refused \u{1F600}');
        await push.deadLetter(second[0], given);
        expect(await push.deadLetters({ taskId: odd, limit: 10 })).toEqual([given]);
        expect(await push.claimDue(10, LONG_HOLD_MS)).toEqual([]);
        await push.deleteConfig(odd, 'c-\u0000\u0001', scope);
        expect(await push.listConfigs(odd, scope)).toEqual([]);
      });

      it('calls onEnqueued after a write that enqueued deliveries, and only then', async () => {
        let calls = 0;
        push.onEnqueued(() => calls++);
        await store.create(task('t-0', at(0)), 'skill', alice);
        await store.update('t-0', alice, 1, [status('t-0', 'TASK_STATE_WORKING', at(1))]);
        expect(calls).toBe(0);
        await push.saveConfig(config('t-1', 'c-a'), 10);
        await store.create(task('t-1', at(0)), 'skill', alice);
        expect(calls).toBe(1);
        await store.update('t-1', alice, 1, [note('aside')]);
        expect(calls).toBe(1);
        await store.update('t-1', alice, 2, [status('t-1', 'TASK_STATE_WORKING', at(1))]);
        expect(calls).toBe(2);
      });

      describe('claims', () => {
        beforeEach(async () => {
          for (const id of ['t-1', 't-2']) {
            await push.saveConfig(config(id, 'c-a'), 10);
            await store.create(task(id, at(0)), 'skill', alice);
            await store.update(id, alice, 1, [status(id, 'TASK_STATE_WORKING', at(1)), chunk(id, 'one')]);
          }
          await push.saveConfig(config('t-1', 'c-b'), 10);
          await store.update('t-1', alice, 3, [status('t-1', 'TASK_STATE_COMPLETED', at(2))]);
          // Pending now: t-1/c-a 1,2,3,4; t-1/c-b 4; t-2/c-a 1,2,3.
        });

        it('gives only the lowest pending seq of each (task, config)', async () => {
          expect(keys(await push.claimDue(10, LONG_HOLD_MS))).toEqual(['t-1/c-a@1', 't-1/c-b@4', 't-2/c-a@1']);
        });

        it('gives at most `limit` deliveries', async () => {
          const first = await push.claimDue(2, LONG_HOLD_MS);
          expect(first).toHaveLength(2);
          const second = await push.claimDue(2, LONG_HOLD_MS);
          expect(second).toHaveLength(1);
          expect([...keys(first), ...keys(second)].sort()).toEqual(['t-1/c-a@1', 't-1/c-b@4', 't-2/c-a@1']);
        });

        it('holds what it gave: a second claim within the hold gets nothing of those pairs, not even their later seqs', async () => {
          const first = await push.claimDue(10, LONG_HOLD_MS);
          expect(first).toHaveLength(3);
          expect(await push.claimDue(10, LONG_HOLD_MS)).toEqual([]);
          // Another pair's event enqueued meanwhile is given.
          await push.saveConfig(config('t-3', 'c-a'), 10);
          await store.create(task('t-3', at(0)), 'skill', alice);
          expect(keys(await push.claimDue(10, LONG_HOLD_MS))).toEqual(['t-3/c-a@1']);
        });

        it('gives a held delivery again once its hold has expired (its dispatcher died), the same event', async () => {
          const first = await push.claimDue(10, SHORT_HOLD_MS);
          expect(await push.claimDue(10, SHORT_HOLD_MS)).toEqual([]);
          await sleep(SHORT_HOLD_MS + 150);
          const again = await push.claimDue(10, LONG_HOLD_MS);
          expect(keys(again)).toEqual(keys(first));
          const byKey = new Map(first.map((d) => [`${d.config.taskId}/${d.config.id}@${d.seq}`, d]));
          for (const delivery of again) {
            const earlier = byKey.get(`${delivery.config.taskId}/${delivery.config.id}@${delivery.seq}`)!;
            expect(delivery).toEqual({ ...earlier, attempts: 0 });
          }
          // And held again.
          expect(await push.claimDue(10, LONG_HOLD_MS)).toEqual([]);
        });

        it("delivered: the pair's next seq is due at once; the whole outbox drains in order per pair", async () => {
          const first = await push.claimDue(10, LONG_HOLD_MS);
          const head = first.find((d) => d.config.taskId === 't-1' && d.config.id === 'c-a')!;
          await push.delivered(head);
          expect(keys(await push.claimDue(10, LONG_HOLD_MS))).toEqual(['t-1/c-a@2']);
          for (const delivery of first) if (delivery !== head) await push.delivered(delivery);
          const order = await drain(push);
          // t-1/c-a@2 is still held by the claim above; the rest drains.
          expect(ofPair(order, 't-1/c-a')).toEqual([]);
          expect(ofPair(order, 't-2/c-a')).toEqual([2, 3]);
          expect(ofPair(order, 't-1/c-b')).toEqual([]);
        });

        it('retryAt: the delivery (and the pair behind it) waits until then, and comes back with one more attempt', async () => {
          const first = await push.claimDue(10, LONG_HOLD_MS);
          const head = first.find((d) => d.config.taskId === 't-1' && d.config.id === 'c-a')!;
          await push.retryAt(head, Date.now() + 400, 'HTTP 503');
          for (const delivery of first) if (delivery !== head) await push.delivered(delivery);
          // The other pairs move on; this one does not (neither its seq 1 nor 2 is given).
          const meanwhile = await drain(push);
          expect(ofPair(meanwhile, 't-1/c-a')).toEqual([]);
          expect(ofPair(meanwhile, 't-2/c-a')).toEqual([2, 3]);
          await sleep(600);
          const due = await push.claimDue(10, LONG_HOLD_MS);
          expect(due).toEqual([{ ...head, attempts: 1 }]);
          await push.retryAt(due[0], Date.now() - 1, 'HTTP 503');
          // A time already past: due at once, attempts counted again.
          const third = await push.claimDue(10, LONG_HOLD_MS);
          expect(third).toEqual([{ ...head, attempts: 2 }]);
          await push.delivered(third[0]);
          expect(ofPair(await drain(push), 't-1/c-a')).toEqual([2, 3, 4]);
        });

        it('release: the delivery, not attempted, waits until then and comes back with its attempts unchanged', async () => {
          const first = await push.claimDue(10, LONG_HOLD_MS);
          const head = first.find((d) => d.config.taskId === 't-1' && d.config.id === 'c-a')!;
          await push.release!(head, Date.now() + 400);
          for (const delivery of first) if (delivery !== head) await push.delivered(delivery);
          expect(ofPair(await drain(push), 't-1/c-a')).toEqual([]);
          await sleep(600);
          expect(await push.claimDue(10, LONG_HOLD_MS)).toEqual([head]);
        });

        it('deadLetter: the delivery leaves the queue, the next seq is due, the letter is kept', async () => {
          const first = await push.claimDue(10, LONG_HOLD_MS);
          const head = first.find((d) => d.config.taskId === 't-1' && d.config.id === 'c-a')!;
          const given = letter(head, 'HTTP 410', { lastStatus: 410 });
          await push.deadLetter(head, given);
          expect(keys(await push.claimDue(10, LONG_HOLD_MS))).toEqual(['t-1/c-a@2']);
          expect(await push.deadLetters({ limit: 10 })).toEqual([given]);
        });

        it('deadLetters: newest first, filtered by task, at most `limit`; a letter without a status has none', async () => {
          const letters: PushDeadLetter[] = [];
          for (let round = 0; round < 3; round++) {
            for (const delivery of (await push.claimDue(10, LONG_HOLD_MS)).sort((x, y) =>
              keys([x])[0].localeCompare(keys([y])[0]),
            )) {
              const given = letter(delivery, `refused ${round}`, round === 1 ? {} : { lastStatus: 500 + round });
              await push.deadLetter(delivery, given);
              letters.push(given);
            }
          }
          // Round 0: t-1/c-a@1, t-1/c-b@4, t-2/c-a@1; round 1: t-1/c-a@2, t-2/c-a@2; round 2: t-1/c-a@3, t-2/c-a@3.
          expect(letters.map((l) => `${l.taskId}/${l.configId}:${l.eventId}`)).toEqual([
            't-1/c-a:t-1:1',
            't-1/c-b:t-1:4',
            't-2/c-a:t-2:1',
            't-1/c-a:t-1:2',
            't-2/c-a:t-2:2',
            't-1/c-a:t-1:3',
            't-2/c-a:t-2:3',
          ]);
          const newestFirst = [...letters].reverse();
          expect(await push.deadLetters({ limit: 100 })).toEqual(newestFirst);
          expect(await push.deadLetters({ limit: 2 })).toEqual(newestFirst.slice(0, 2));
          expect(await push.deadLetters({ taskId: 't-2', limit: 100 })).toEqual(
            newestFirst.filter((l) => l.taskId === 't-2'),
          );
          expect(await push.deadLetters({ taskId: 't-1', limit: 2 })).toEqual(
            newestFirst.filter((l) => l.taskId === 't-1').slice(0, 2),
          );
          expect(await push.deadLetters({ taskId: 't-none', limit: 100 })).toEqual([]);
          expect((await push.deadLetters({ taskId: 't-2', limit: 100 }))[1]).not.toHaveProperty('lastStatus');
          // What is left: t-1/c-a@4 only.
          expect(await drain(push)).toEqual(['t-1/c-a@4']);
        });

        it("deleteConfig drops the config's pending deliveries, held ones included; the others stay; saving it again brings none back", async () => {
          const held = await push.claimDue(10, LONG_HOLD_MS);
          await push.deleteConfig('t-1', 'c-a', alice);
          // The dispatcher that held one may still settle it: nothing happens.
          const head = held.find((d) => d.config.taskId === 't-1' && d.config.id === 'c-a')!;
          await push.delivered(head);
          await push.retryAt(head, Date.now(), 'late');
          for (const delivery of held) if (delivery !== head) await push.delivered(delivery);
          await push.saveConfig(config('t-1', 'c-a'), 10);
          const order = await drain(push);
          expect(ofPair(order, 't-1/c-a')).toEqual([]);
          expect(ofPair(order, 't-2/c-a')).toEqual([2, 3]);
          // The config saved again gets the task's next events only (as c-b does).
          await store.update('t-1', alice, 4, [chunk('t-1', 'after')]);
          expect((await drain(push)).sort()).toEqual(['t-1/c-a@5', 't-1/c-b@5']);
        });

        it('another scope deleting the config drops nothing', async () => {
          await push.deleteConfig('t-1', 'c-a', bob);
          await push.deleteConfig('t-1', 'c-a', aliceElsewhere);
          expect(ofPair(await drain(push), 't-1/c-a')).toEqual([1, 2, 3, 4]);
        });
      });
    });
  });
}
