import { lastValueFrom, toArray } from 'rxjs';
import { EventIdWindow } from '../../../libs/a2a/src/push-receiver/event-id.window.js';
import { PushEventHub } from '../../../libs/a2a/src/push-receiver/push-event.hub.js';
import { PushTokenMatcher } from '../../../libs/a2a/src/push-receiver/push-token.matcher.js';
import {
  MAX_PUSH_BODY_DEPTH,
  readPushedEvent,
  type PushedEvent,
} from '../../../libs/a2a/src/push-receiver/pushed-event.reader.js';
import type { StreamResponse } from '../../../libs/a2a/src/protocol/a2a.types.js';

/** The receiver's pure parts: the event-id window, the token comparison, the body check, the per-task hub. */

describe('EventIdWindow', () => {
  const sender = 'token\0\0task-1';

  it('reports an id seen within the window, and forgets the oldest past its capacity', () => {
    const window = new EventIdWindow(2);
    expect(window.firstSeen('t:1', sender)).toBe(true);
    expect(window.firstSeen('t:1', sender)).toBe(false);
    expect(window.firstSeen('t:2', sender)).toBe(true);
    expect(window.firstSeen('t:3', sender)).toBe(true);
    expect(window.size).toBe(2);
    expect(window.firstSeen('t:1', sender)).toBe(true);
    expect(window.firstSeen('t:3', sender)).toBe(false);
  });

  it("keeps each sender's ids apart: the same id from another sender is another event", () => {
    const window = new EventIdWindow(10);
    expect(window.firstSeen('1', sender)).toBe(true);
    expect(window.firstSeen('1', 'other-token\0\0task-1')).toBe(true);
    expect(window.firstSeen('1', 'token\0\0task-2')).toBe(true);
    expect(window.firstSeen('1', sender)).toBe(false);
  });

  it('keeps long ids as digests, still told apart', () => {
    const window = new EventIdWindow(10);
    const long = 'x'.repeat(10_000);
    expect(window.firstSeen(long, sender)).toBe(true);
    expect(window.firstSeen(long, sender)).toBe(false);
    expect(window.firstSeen(`${long}y`, sender)).toBe(true);
  });

  it('remembers nothing with capacity 0', () => {
    const window = new EventIdWindow(0);
    expect(window.firstSeen('a', sender)).toBe(true);
    expect(window.firstSeen('a', sender)).toBe(true);
    expect(window.size).toBe(0);
  });
});

describe('PushTokenMatcher', () => {
  it('matches any expected token exactly', () => {
    const matcher = new PushTokenMatcher(['first', 'second-token']);
    expect(matcher.matches('first')).toBe(true);
    expect(matcher.matches('second-token')).toBe(true);
    expect(matcher.matches('firs')).toBe(false);
    expect(matcher.matches('first ')).toBe(false);
    expect(matcher.matches('')).toBe(false);
    expect(matcher.matches(undefined)).toBe(false);
  });
});

describe('readPushedEvent', () => {
  const update = { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_INPUT_REQUIRED' } };

  it('treats null members as unset, as ProtoJSON does', () => {
    expect(readPushedEvent({ task: null, statusUpdate: update, message: null })).toMatchObject({
      taskId: 't',
      terminal: false,
    });
  });

  it('routes a message by its taskId, and one without to no task', () => {
    const message = { messageId: 'm', role: 'ROLE_AGENT', parts: [] };
    expect(readPushedEvent({ message: { ...message, taskId: 't' } })).toMatchObject({ taskId: 't' });
    expect(readPushedEvent({ message })).toMatchObject({ taskId: undefined });
    expect(readPushedEvent({ message: { ...message, taskId: '' } })).toMatchObject({ taskId: undefined });
    expect(readPushedEvent({ message: { ...message, taskId: 5 } })).toEqual({
      problem: 'message.taskId must be a string',
    });
  });

  it.each(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'])(
    'marks %s terminal',
    (state) => {
      expect(readPushedEvent({ statusUpdate: { ...update, status: { state } } })).toMatchObject({ terminal: true });
      expect(readPushedEvent({ task: { id: 't', contextId: 'c', status: { state } } })).toMatchObject({
        terminal: true,
      });
    },
  );

  it('accepts the deepest body an agent of this module may send, and not one level more', () => {
    const nested = (levels: number): unknown => {
      let value: unknown = 1;
      for (let i = 0; i < levels; i++) value = [value];
      return value;
    };
    // The body, statusUpdate and metadata are three levels; the rest is the metadata value's.
    const body = (levels: number) => ({ statusUpdate: { ...update, metadata: { x: nested(levels) } } });
    expect(readPushedEvent(body(MAX_PUSH_BODY_DEPTH - 3))).not.toHaveProperty('problem');
    expect(readPushedEvent(body(MAX_PUSH_BODY_DEPTH - 2))).toEqual({
      problem: expect.stringContaining(`nests more than ${MAX_PUSH_BODY_DEPTH} levels`),
    });
  });
});

describe('PushEventHub', () => {
  const event = (taskId: string, state: 'TASK_STATE_WORKING' | 'TASK_STATE_COMPLETED'): PushedEvent => ({
    event: { statusUpdate: { taskId, contextId: 'c', status: { state } } },
    taskId,
    terminal: state === 'TASK_STATE_COMPLETED',
  });

  it('lets a watcher unsubscribe another while events are delivered', () => {
    const hub = new PushEventHub();
    const seen: string[] = [];
    hub.forTask('t').subscribe(() => {
      seen.push('first');
      second.unsubscribe();
    });
    const second = hub.forTask('t').subscribe(() => seen.push('second'));
    hub.publish(event('t', 'TASK_STATE_WORKING'));
    hub.publish(event('t', 'TASK_STATE_WORKING'));
    expect(seen).toEqual(['first', 'first']);
    expect(hub.watchedTasks).toBe(1);
  });

  it('keeps a watcher that subscribes while the task ends for the next events of that id', async () => {
    const hub = new PushEventHub();
    let late: Promise<StreamResponse[]> | undefined;
    hub.forTask('t').subscribe({ complete: () => (late = lastValueFrom(hub.forTask('t').pipe(toArray()))) });
    hub.publish(event('t', 'TASK_STATE_COMPLETED'));
    expect(hub.watchedTasks).toBe(1);
    hub.publish(event('t', 'TASK_STATE_COMPLETED'));
    expect(await late).toEqual([event('t', 'TASK_STATE_COMPLETED').event]);
    expect(hub.watchedTasks).toBe(0);
  });

  it('completes every stream at shutdown, and streams asked for afterwards at once', async () => {
    const hub = new PushEventHub();
    const all = lastValueFrom(hub.events$.pipe(toArray()));
    const task = lastValueFrom(hub.forTask('t').pipe(toArray()));
    hub.publish(event('t', 'TASK_STATE_WORKING'));
    hub.onModuleDestroy();
    expect(await all).toHaveLength(1);
    expect(await task).toHaveLength(1);
    expect(hub.watchedTasks).toBe(0);
    expect(await lastValueFrom(hub.forTask('t').pipe(toArray()))).toEqual([]);
  });
});
