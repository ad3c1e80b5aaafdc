import type { TaskScope } from '../../../libs/a2a/src/context/call-context.js';
import type { TaskChange } from '../../../libs/a2a/src/task/task-reducer.js';
import type { Message, Task, TaskState } from '../../../libs/a2a/src/protocol/a2a.types.js';
import { encodeCursor } from '../../../libs/a2a/src/store/list-cursor.js';
import {
  ConcurrentModificationError,
  InvalidPageTokenError,
  type TaskListQuery,
  type TaskStore,
} from '../../../libs/a2a/src/store/task.store.js';

/**
 * What every TaskStore does, whatever keeps the tasks: one suite, run against each implementation by its own spec.
 * `makeStore` is called before each case and must give a store that holds no task.
 */

export const alice: TaskScope = { tenant: '', owner: 'alice' };
export const bob: TaskScope = { tenant: '', owner: 'bob' };
export const aliceElsewhere: TaskScope = { tenant: 'acme', owner: 'alice' };

export const task = (id: string, at: string, state: TaskState = 'TASK_STATE_WORKING', contextId = 'c-1'): Task => ({
  id,
  contextId,
  status: { state, timestamp: at },
  history: [{ messageId: `m-${id}`, role: 'ROLE_USER', parts: [{ text: id }] }],
});

export const working = (at: string) => ({
  statusUpdate: { taskId: 'x', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' as const, timestamp: at } },
});

export const query = (q: Partial<TaskListQuery> = {}): TaskListQuery => ({ pageSize: 50, ...q });

export interface ContractStoreOptions {
  maxHistoryLength?: number;
}

export function describeTaskStoreContract(
  name: string,
  makeStore: (options?: ContractStoreOptions) => TaskStore | Promise<TaskStore>,
): void {
  describe(`${name} (TaskStore contract)`, () => {
    let store: TaskStore;
    beforeEach(async () => {
      store = await makeStore();
    });

    describe('scoping by tenant and owner', () => {
      beforeEach(async () => {
        await store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice);
      });

      it('shows a task to its owner', async () => {
        const stored = await store.get('t-1', alice);
        expect(stored).toMatchObject({ task: { id: 't-1' }, version: 1, skillId: 'skill' });
      });

      it.each([
        ['another owner', bob],
        ['the same owner in another tenant', aliceElsewhere],
      ])('hides it from %s on get and list', async (_label, scope) => {
        expect(await store.get('t-1', scope)).toBeUndefined();
        expect(await store.list(query(), scope)).toEqual({ tasks: [], nextPageToken: '', totalSize: 0 });
      });

      it('refuses an update from another owner and leaves the task unchanged', async () => {
        await expect(store.update('t-1', bob, 1, [working('2026-01-02T00:00:00.000Z')])).rejects.toBeInstanceOf(
          ConcurrentModificationError,
        );
        expect((await store.get('t-1', alice))?.task.status.state).toBe('TASK_STATE_WORKING');
        expect((await store.get('t-1', alice))?.version).toBe(1);
      });

      it("refuses a page token made for another scope, even one that pages the caller's own list", async () => {
        await store.create(task('t-2', '2026-01-01T00:00:00.000Z'), 'skill', alice);
        const first = await store.list(query({ pageSize: 1 }), alice);
        expect(first.nextPageToken).not.toBe('');
        await expect(store.list(query({ pageToken: first.nextPageToken }), bob)).rejects.toBeInstanceOf(
          InvalidPageTokenError,
        );
        await expect(store.list(query({ pageToken: first.nextPageToken }), aliceElsewhere)).rejects.toBeInstanceOf(
          InvalidPageTokenError,
        );
      });
    });

    describe('copies in and out', () => {
      it('is not changed by mutating the task given to create', async () => {
        const input = task('t-1', '2026-01-01T00:00:00.000Z');
        await store.create(input, 'skill', alice);
        input.status.state = 'TASK_STATE_FAILED';
        input.history!.push({ messageId: 'evil', role: 'ROLE_USER', parts: [{ text: 'x' }] });
        const stored = await store.get('t-1', alice);
        expect(stored?.task.status.state).toBe('TASK_STATE_WORKING');
        expect(stored?.task.history).toHaveLength(1);
      });

      it('is not changed by mutating a task it returned', async () => {
        const created = await store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice);
        created.task.status.state = 'TASK_STATE_FAILED';
        const got = await store.get('t-1', alice);
        got!.task.history!.length = 0;
        const listed = await store.list(query(), alice);
        listed.tasks[0].contextId = 'hijacked';
        const again = await store.get('t-1', alice);
        expect(again?.task).toEqual(task('t-1', '2026-01-01T00:00:00.000Z'));
      });

      it('is not changed by mutating a change after update', async () => {
        await store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice);
        const change = {
          artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: { artifactId: 'a-1', parts: [{ text: 'v1' }] } },
        };
        await store.update('t-1', alice, 1, [change]);
        change.artifactUpdate.artifact.parts[0].text = 'tampered';
        change.artifactUpdate.artifact.parts.push({ text: 'extra' });
        expect((await store.get('t-1', alice))?.task.artifacts).toEqual([
          { artifactId: 'a-1', parts: [{ text: 'v1' }] },
        ]);
      });
    });

    describe('what a task holds', () => {
      const rich: Task = {
        id: 't-rich',
        contextId: 'c-rich',
        status: {
          state: 'TASK_STATE_INPUT_REQUIRED',
          timestamp: '2026-01-01T00:00:00.000Z',
          message: { messageId: 'm-ask', role: 'ROLE_AGENT', parts: [{ text: 'which?' }], metadata: { step: 2 } },
        },
        history: [
          {
            messageId: 'm-1',
            role: 'ROLE_USER',
            contextId: 'c-rich',
            taskId: 't-rich',
            referenceTaskIds: ['t-0'],
            extensions: ['https://example.com/ext'],
            parts: [
              { text: 'hi', mediaType: 'text/plain', metadata: { lang: 'en' } },
              {
                data: { nested: { list: [1, 2.5, -3, null, true, 'x'], empty: {} }, n: 0 },
                mediaType: 'application/json',
              },
              { raw: 'aGVsbG8=', mediaType: 'text/plain', filename: 'hello.txt' },
              { url: 'https://example.com/a.pdf', mediaType: 'application/pdf' },
            ],
          },
        ],
        artifacts: [
          {
            artifactId: 'a-1',
            name: 'answer',
            description: 'd',
            parts: [{ text: 'ok' }],
            metadata: { score: 0.5 },
            extensions: ['e'],
          },
        ],
        metadata: { source: 'test', tags: ['a', 'b'], deep: { x: { y: { z: 'w' } } }, unicode: 'é 😀 \u202e' },
      };

      it('keeps every field: metadata, data, raw and url parts, references, extensions, the status message', async () => {
        await store.create(rich, 'skill', alice);
        expect((await store.get('t-rich', alice))?.task).toEqual(rich);
        expect((await store.list(query(), alice)).tasks).toEqual([rich]);
      });

      it('keeps them through updates', async () => {
        await store.create(rich, 'skill', alice);
        const more = {
          artifactUpdate: {
            taskId: 't-rich',
            contextId: 'c-rich',
            append: true,
            artifact: { artifactId: 'a-1', parts: [{ data: { k: [{}] } }] },
          },
        };
        await store.update('t-rich', alice, 1, [more]);
        const stored = await store.get('t-rich', alice);
        expect(stored?.task).toEqual({
          ...rich,
          artifacts: [{ ...rich.artifacts![0], parts: [{ text: 'ok' }, { data: { k: [{}] } }] }],
        });
      });

      it('keeps NUL characters, lone surrogates and other odd strings in ids, context ids, owners and text', async () => {
        const odd = 'x\u0000\ud800y\udc00\u0001z\u202e😀';
        const oddScope: TaskScope = { tenant: `t${odd}`, owner: `o${odd}` };
        const oddTask: Task = {
          ...task(`t-${odd}`, '2026-01-01T00:00:00.000Z', 'TASK_STATE_WORKING', `c-${odd}`),
          metadata: { [odd]: odd },
        };
        await store.create(oddTask, 'skill', oddScope);
        // What an escaping that leaves its escape character alone would turn the odd id into: a distinct id still.
        const lookalike = 't-x\u00010000\u0001d800y\u0001dc00\u0001z\u202e😀';
        await store.create(task(lookalike, '2026-01-01T00:00:00.000Z', 'TASK_STATE_WORKING', 'c-x'), 'skill', oddScope);
        expect((await store.get(`t-${odd}`, oddScope))?.task).toEqual(oddTask);
        expect(await store.get(`t-${odd}`, { tenant: `t${odd}`, owner: 'o' })).toBeUndefined();
        expect((await store.list(query({ contextId: `c-${odd}` }), oddScope)).tasks).toEqual([oddTask]);
        expect(await store.update(`t-${odd}`, oddScope, 1, [working('2026-01-02T00:00:00.000Z')])).toBe(2);
        expect((await store.list(query(), oddScope)).tasks.map((t) => t.id)).toEqual([`t-${odd}`, lookalike]);
      });

      it('trims the history to maxHistoryLength, dropping the oldest messages', async () => {
        const bounded = await makeStore({ maxHistoryLength: 2 });
        await bounded.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice);
        const message = (n: number): TaskChange => ({
          historyMessage: { messageId: `m-${n}`, role: 'ROLE_USER', parts: [{ text: `${n}` }] },
        });
        await bounded.update('t-1', alice, 1, [message(2), message(3)]);
        const asked = {
          statusUpdate: {
            taskId: 't-1',
            contextId: 'c-1',
            status: {
              state: 'TASK_STATE_INPUT_REQUIRED' as const,
              message: { messageId: 'm-4', role: 'ROLE_AGENT' as const, parts: [{ text: '?' }] },
            },
          },
        };
        await bounded.update('t-1', alice, 3, [asked]);
        expect((await bounded.get('t-1', alice))?.task.history?.map((m) => m.messageId)).toEqual(['m-3', 'm-4']);
      });
    });

    describe('optimistic concurrency', () => {
      beforeEach(async () => {
        await store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice);
      });

      it('bumps the version by the number of changes applied', async () => {
        expect(await store.update('t-1', alice, 1, [working('2026-01-01T00:00:01.000Z')])).toBe(2);
        expect(
          await store.update('t-1', alice, 2, [
            working('2026-01-01T00:00:02.000Z'),
            working('2026-01-01T00:00:03.000Z'),
          ]),
        ).toBe(4);
        const stored = await store.get('t-1', alice);
        expect(stored?.version).toBe(4);
        expect(stored?.task.status.timestamp).toBe('2026-01-01T00:00:03.000Z');
      });

      it('leaves the version as it is for an update without changes', async () => {
        await store.update('t-1', alice, 1, [working('2026-01-01T00:00:01.000Z')]);
        expect(await store.update('t-1', alice, 2, [])).toBe(2);
        expect(await store.update('t-1', alice, 2, [working('2026-01-01T00:00:02.000Z')])).toBe(3);
      });

      it('throws ConcurrentModificationError on a stale version and writes nothing', async () => {
        await store.update('t-1', alice, 1, [working('2026-01-01T00:00:01.000Z')]);
        await expect(store.update('t-1', alice, 1, [working('2026-01-09T00:00:00.000Z')])).rejects.toBeInstanceOf(
          ConcurrentModificationError,
        );
        const stored = await store.get('t-1', alice);
        expect(stored?.version).toBe(2);
        expect(stored?.task.status.timestamp).toBe('2026-01-01T00:00:01.000Z');
      });

      it('throws ConcurrentModificationError for an unknown task', async () => {
        await expect(store.update('nope', alice, 1, [])).rejects.toBeInstanceOf(ConcurrentModificationError);
      });

      it('refuses to create a task id twice, in any scope', async () => {
        await expect(store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice)).rejects.toBeInstanceOf(
          ConcurrentModificationError,
        );
        await expect(store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', bob)).rejects.toBeInstanceOf(
          ConcurrentModificationError,
        );
        expect(await store.get('t-1', bob)).toBeUndefined();
      });
    });

    describe('list', () => {
      beforeEach(async () => {
        await store.create(task('t-a', '2026-01-01T00:00:01.000Z', 'TASK_STATE_COMPLETED', 'c-1'), 's', alice);
        await store.create(task('t-b', '2026-01-01T00:00:03.000Z', 'TASK_STATE_WORKING', 'c-2'), 's', alice);
        await store.create(task('t-c', '2026-01-01T00:00:02.000Z', 'TASK_STATE_WORKING', 'c-1'), 's', alice);
        // Same timestamp as t-b: the id breaks the tie (descending).
        await store.create(task('t-d', '2026-01-01T00:00:03.000Z', 'TASK_STATE_INPUT_REQUIRED', 'c-2'), 's', alice);
        await store.create(task('t-e', '2026-01-01T00:00:00.000Z', 'TASK_STATE_FAILED', 'c-1'), 's', alice);
        await store.create(task('t-bob', '2026-01-01T00:00:09.000Z'), 's', bob);
      });

      const listIds = async (q: Partial<TaskListQuery> = {}) =>
        (await store.list(query(q), alice)).tasks.map((t) => t.id);

      it('orders by status timestamp, newest first, ties broken by id', async () => {
        expect(await listIds()).toEqual(['t-d', 't-b', 't-c', 't-a', 't-e']);
      });

      it('filters by contextId', async () => {
        expect(await listIds({ contextId: 'c-2' })).toEqual(['t-d', 't-b']);
        expect(await listIds({ contextId: 'unknown' })).toEqual([]);
      });

      it('filters by current status', async () => {
        expect(await listIds({ status: 'TASK_STATE_WORKING' })).toEqual(['t-b', 't-c']);
      });

      it('keeps tasks whose status timestamp is at or after statusTimestampAfter (>=)', async () => {
        expect(await listIds({ statusTimestampAfter: '2026-01-01T00:00:02.000Z' })).toEqual(['t-d', 't-b', 't-c']);
        expect(await listIds({ statusTimestampAfter: '2026-01-01T00:00:02.001Z' })).toEqual(['t-d', 't-b']);
      });

      it('combines filters', async () => {
        expect(
          await listIds({
            contextId: 'c-1',
            status: 'TASK_STATE_WORKING',
            statusTimestampAfter: '2026-01-01T00:00:01.500Z',
          }),
        ).toEqual(['t-c']);
      });

      it('follows status changes: an updated task moves to the front', async () => {
        const stored = await store.get('t-e', alice);
        await store.update('t-e', alice, stored!.version, [working('2026-01-01T00:00:05.000Z')]);
        expect(await listIds()).toEqual(['t-e', 't-d', 't-b', 't-c', 't-a']);
        expect(await listIds({ status: 'TASK_STATE_FAILED' })).toEqual([]);
      });

      it('keeps a task whose status has no timestamp under every timestamp filter', async () => {
        const stored = await store.get('t-c', alice);
        await store.update('t-c', alice, stored!.version, [
          { statusUpdate: { taskId: 't-c', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } } },
        ]);
        expect(await listIds({ statusTimestampAfter: '2026-01-01T00:00:02.000Z' })).toEqual(['t-d', 't-b', 't-c']);
        // It lists as the oldest, and a page token can point at it.
        const paged: string[] = [];
        let pageToken: string | undefined;
        do {
          const page = await store.list(query({ pageSize: 1, pageToken }), alice);
          paged.push(...page.tasks.map((t) => t.id));
          pageToken = page.nextPageToken || undefined;
        } while (pageToken);
        expect(paged).toEqual(['t-d', 't-b', 't-a', 't-e', 't-c']);
      });

      it('pages through every match once, with totalSize on every page and "" on the last', async () => {
        const seen: string[] = [];
        const tokens: string[] = [];
        let pageToken: string | undefined;
        for (let i = 0; i < 10; i++) {
          const page = await store.list(query({ pageSize: 2, pageToken }), alice);
          expect(page.totalSize).toBe(5);
          seen.push(...page.tasks.map((t) => t.id));
          tokens.push(page.nextPageToken);
          if (page.nextPageToken === '') break;
          pageToken = page.nextPageToken;
        }
        expect(seen).toEqual(['t-d', 't-b', 't-c', 't-a', 't-e']);
        expect(tokens.map((t) => t !== '')).toEqual([true, true, false]);
      });

      it('ends with "" when the last page is exactly full', async () => {
        const first = await store.list(query({ pageSize: 3 }), alice);
        const second = await store.list(query({ pageSize: 3, pageToken: first.nextPageToken }), alice);
        expect(second.tasks.map((t) => t.id)).toEqual(['t-a', 't-e']);
        expect(second.nextPageToken).toBe('');
        const whole = await store.list(query({ pageSize: 5 }), alice);
        expect(whole.nextPageToken).toBe('');
      });

      it('gives an empty last page for a cursor past the end', async () => {
        const page = await store.list(query({ pageToken: encodeCursor({ timestamp: 0, id: '' }, alice) }), alice);
        expect(page).toEqual({ tasks: [], nextPageToken: '', totalSize: 5 });
      });

      it.each([
        ['garbage', 'not a token!'],
        ['base64 of something else', Buffer.from('{"timestamp":1}').toString('base64url')],
        ['a wrong tuple', Buffer.from('["soon","t-a"]').toString('base64url')],
      ])('rejects a tampered pageToken (%s) with InvalidPageTokenError', async (_label, pageToken) => {
        await expect(store.list(query({ pageToken }), alice)).rejects.toBeInstanceOf(InvalidPageTokenError);
      });
    });

    describe('terminal tasks', () => {
      const completed = (at: string) => ({
        statusUpdate: {
          taskId: 't-1',
          contextId: 'c-1',
          status: { state: 'TASK_STATE_COMPLETED' as const, timestamp: at },
        },
      });

      it('keeps returning independent copies once a task is terminal', async () => {
        await store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice);
        await store.update('t-1', alice, 1, [completed('2026-01-01T00:00:01.000Z')]);
        const first = await store.get('t-1', alice);
        first!.task.history!.push({ messageId: 'evil', role: 'ROLE_USER', parts: [{ text: 'x' }] });
        first!.task.status.state = 'TASK_STATE_FAILED';
        const again = await store.get('t-1', alice);
        expect(again).toEqual({
          task: { ...task('t-1', '2026-01-01T00:00:01.000Z', 'TASK_STATE_COMPLETED') },
          version: 2,
          skillId: 'skill',
        });
        expect((await store.list(query(), alice)).tasks).toEqual([again!.task]);
      });

      it('still accepts a write to a terminal task from a caller other than the engine', async () => {
        await store.create(task('t-1', '2026-01-01T00:00:00.000Z', 'TASK_STATE_COMPLETED'), 'skill', alice);
        const change = {
          artifactUpdate: {
            taskId: 't-1',
            contextId: 'c-1',
            artifact: { artifactId: 'late', parts: [{ text: 'p.s.' }] },
          },
        };
        expect(await store.update('t-1', alice, 1, [change])).toBe(2);
        const stored = await store.get('t-1', alice);
        expect(stored?.task.artifacts).toEqual([{ artifactId: 'late', parts: [{ text: 'p.s.' }] }]);
        expect(stored?.task.status.state).toBe('TASK_STATE_COMPLETED');
      });
    });

    describe('resuming readers (readChanges)', () => {
      const chunk = (i: number): TaskChange => ({
        artifactUpdate: {
          taskId: 't-1',
          contextId: 'c-1',
          artifact: { artifactId: 'a', parts: [{ text: `${i}` }] },
          append: i > 1,
        },
      });

      beforeEach(async () => {
        await store.create(task('t-1', '2026-01-01T00:00:00.000Z'), 'skill', alice);
        let version = 1;
        for (let i = 1; i <= 3; i++) version = await store.update('t-1', alice, version, [chunk(i)]);
        await store.update('t-1', alice, version, [chunk(4), chunk(5)]);
      });

      it('gives each change after a version with the version it produced, also within one update of several', async () => {
        expect(await store.readChanges!('t-1', alice, 2)).toEqual(
          [2, 3, 4, 5].map((i) => ({ version: i + 1, change: chunk(i) })),
        );
        expect(await store.readChanges!('t-1', alice, 5)).toEqual([{ version: 6, change: chunk(5) }]);
      });

      it('gives nothing to an up-to-date reader, nothing outside the scope, and truncated before the first update', async () => {
        expect(await store.readChanges!('t-1', alice, 6)).toEqual([]);
        expect(await store.readChanges!('t-1', bob, 1)).toBeUndefined();
        expect(await store.readChanges!('t-1', aliceElsewhere, 1)).toBeUndefined();
        expect(await store.readChanges!('t-1', alice, 0)).toBe('truncated');
      });
    });

    describe('a creation with changes after it (create … then)', () => {
      const chunk = (i: number): TaskChange => ({
        artifactUpdate: {
          taskId: 't-2',
          contextId: 'c-1',
          artifact: { artifactId: 'a', parts: [{ text: `${i}` }] },
          append: i > 1,
        },
      });
      // Not terminal: the in-memory store keeps no changes of a terminal task (its readers start from the task).
      const asks: TaskChange = {
        statusUpdate: {
          taskId: 't-2',
          contextId: 'c-1',
          status: { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: '2026-01-01T00:00:09.000Z' },
        },
      };

      it('stores the task with them applied, each its own version after 1, readable as if each were an update', async () => {
        const stored = await store.create(task('t-2', '2026-01-01T00:00:00.000Z'), 'skill', alice, [
          chunk(1),
          chunk(2),
          asks,
        ]);
        expect(stored.version).toBe(4);
        expect(stored.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
        expect(stored.task.artifacts?.[0].parts).toEqual([{ text: '1' }, { text: '2' }]);
        expect(await store.get('t-2', alice)).toEqual(stored);
        expect(await store.readChanges!('t-2', alice, 1)).toEqual([
          { version: 2, change: chunk(1) },
          { version: 3, change: chunk(2) },
          { version: 4, change: asks },
        ]);
        expect(await store.readChanges!('t-2', alice, 3)).toEqual([{ version: 4, change: asks }]);
      });

      it('is the plain creation without them', async () => {
        const stored = await store.create(task('t-2', '2026-01-01T00:00:00.000Z'), 'skill', alice, []);
        expect(stored.version).toBe(1);
        expect(await store.readChanges!('t-2', alice, 0)).toBe('truncated');
      });
    });

    describe('idempotent sends (claimMessageId)', () => {
      it('gives a message id to the first task that claims it, per tenant and owner', async () => {
        expect(await store.claimMessageId!(alice, 'm-1', 't-first')).toBe('t-first');
        expect(await store.claimMessageId!(alice, 'm-1', 't-second')).toBe('t-first');
        expect(await store.claimMessageId!(bob, 'm-1', 't-bob')).toBe('t-bob');
        expect(await store.claimMessageId!(aliceElsewhere, 'm-1', 't-acme')).toBe('t-acme');
      });

      it('hands back the exact task id, odd characters included', async () => {
        const odd = 't\u0000\u0001\ud800-é';
        await store.claimMessageId!(alice, 'm-odd\u0000', odd);
        expect(await store.claimMessageId!(alice, 'm-odd\u0000', 'other')).toBe(odd);
      });

      it("keeps the message that answered a claim, for that claim's own run and scope only", async () => {
        const reply: Message = {
          messageId: 'r-1',
          role: 'ROLE_AGENT',
          contextId: 'c-1',
          parts: [{ text: 'hi \u0000\ud800' }],
          metadata: { n: 1 },
        };
        expect(await store.replyTo!(alice, 'm-2')).toBeUndefined();
        await store.claimMessageId!(alice, 'm-2', 't-replied');
        await store.recordReply!(alice, 'm-2', 't-other', { ...reply, messageId: 'not-its-run' });
        expect(await store.replyTo!(alice, 'm-2')).toBeUndefined();
        await store.recordReply!(alice, 'm-2', 't-replied', reply);
        expect(await store.replyTo!(alice, 'm-2')).toEqual(reply);
        expect(await store.replyTo!(bob, 'm-2')).toBeUndefined();
        expect(await store.replyTo!(aliceElsewhere, 'm-2')).toBeUndefined();
        // A copy: changing what came out changes nothing stored.
        (await store.replyTo!(alice, 'm-2'))!.parts.push({ text: 'extra' });
        expect((await store.replyTo!(alice, 'm-2'))!.parts).toHaveLength(1);
      });

      it("keeps the first claim's configuration digest, per tenant and owner; a lost claim changes nothing", async () => {
        expect(await store.claimedConfiguration!(alice, 'm-3')).toBeUndefined();
        await store.claimMessageId!(alice, 'm-3', 't-1', undefined, 'c1;a;0;p');
        expect(await store.claimMessageId!(alice, 'm-3', 't-2', undefined, 'c1;b;1;q')).toBe('t-1');
        expect(await store.claimedConfiguration!(alice, 'm-3')).toBe('c1;a;0;p');
        expect(await store.claimedConfiguration!(bob, 'm-3')).toBeUndefined();
        expect(await store.claimedConfiguration!(aliceElsewhere, 'm-3')).toBeUndefined();
        // A claim made without one (by an engine of another release) has none.
        await store.claimMessageId!(alice, 'm-4', 't-4');
        expect(await store.claimedConfiguration!(alice, 'm-4')).toBeUndefined();
      });
    });
  });
}
