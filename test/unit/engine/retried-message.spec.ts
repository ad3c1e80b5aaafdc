import { resendsMessage, sentBefore } from '../../../libs/a2a/src/engine/retried-message.js';
import type { Message, Task } from '../../../libs/a2a/src/protocol/a2a.types.js';

/** The server's copy of a first send: the caller's message with the ids the server gave it. */
const first: Message = {
  messageId: 'm-1',
  role: 'ROLE_USER',
  parts: [
    { text: 'book it', metadata: { source: 'ui' } },
    { data: { seats: 2, class: 'economy' }, mediaType: 'application/json' },
  ],
  metadata: { 'nestjs-a2a/skillId': 'book', trace: { step: 1 } },
  contextId: 'ctx-made-by-server',
  taskId: 'task-1',
};
const retry = (changes: Partial<Message> = {}): Message => {
  const { contextId: _contextId, taskId: _taskId, ...sent } = structuredClone(first);
  return { ...sent, ...changes };
};

describe('resendsMessage', () => {
  it('takes the same message, sent again without the ids the server added, for a retry', () => {
    expect(resendsMessage(first, retry())).toBe(true);
    expect(resendsMessage(first, retry({ contextId: 'ctx-made-by-server' }))).toBe(true);
  });

  it('reads past key order and past empty fields one binding leaves out and another keeps', () => {
    const reordered = retry({
      metadata: { trace: { step: 1 }, 'nestjs-a2a/skillId': 'book' },
      parts: [
        { metadata: { source: 'ui' }, text: 'book it', mediaType: '' },
        { mediaType: 'application/json', data: { class: 'economy', seats: 2 } },
      ],
      extensions: [],
      referenceTaskIds: [],
    });
    expect(resendsMessage(first, reordered)).toBe(true);
  });

  it('tells another message under the same id: other text, data, metadata, references or context', () => {
    expect(resendsMessage(first, retry({ parts: [{ text: 'cancel it' }] }))).toBe(false);
    expect(
      resendsMessage(
        first,
        retry({ parts: [first.parts[0], { data: { seats: 3, class: 'economy' }, mediaType: 'application/json' }] }),
      ),
    ).toBe(false);
    expect(resendsMessage(first, retry({ metadata: { 'nestjs-a2a/skillId': 'book', trace: { step: 2 } } }))).toBe(
      false,
    );
    expect(resendsMessage(first, retry({ referenceTaskIds: ['task-0'] }))).toBe(false);
    expect(resendsMessage(first, retry({ contextId: 'ctx-other' }))).toBe(false);
    expect(resendsMessage(first, retry({ role: 'ROLE_AGENT' }))).toBe(false);
  });

  it('compares any string JSON carries, lone surrogates included (which RFC 8785 canonical JSON refuses)', () => {
    const lone = (text: string, key = 'k'): Message => ({
      messageId: 'm-3',
      role: 'ROLE_USER',
      parts: [{ text }],
      metadata: JSON.parse(`{"${key}":"\\uda89"}`) as Message['metadata'],
    });
    expect(resendsMessage(lone('echo \uda89 x'), lone('echo \uda89 x'))).toBe(true);
    expect(resendsMessage(lone('echo \uda89 x'), lone('echo \uda89 y'))).toBe(false);
    expect(resendsMessage(lone('echo \uda89 x'), lone('echo \udc89 x'))).toBe(false);
    expect(resendsMessage(lone('a'), lone('a', '\udc00'))).toBe(false);
  });

  it('tells a member missing from one side from a member present on both, and a list from a map', () => {
    expect(resendsMessage(first, retry({ metadata: { 'nestjs-a2a/skillId': 'book' } }))).toBe(false);
    expect(
      resendsMessage(first, retry({ metadata: { 'nestjs-a2a/skillId': 'book', trace: { step: 1 }, more: 1 } })),
    ).toBe(false);
    expect(resendsMessage(first, retry({ metadata: { 'nestjs-a2a/skillId': 'book', trace: [1] as never } }))).toBe(
      false,
    );
  });
});

describe('sentBefore', () => {
  it("finds the history's message with the same id and role, and nothing else", () => {
    const task = {
      id: 'task-1',
      contextId: 'ctx',
      status: { state: 'TASK_STATE_COMPLETED' },
      history: [first, { ...first, role: 'ROLE_AGENT', messageId: 'm-2' }],
    } as Task;
    expect(sentBefore(task, retry())).toBe(first);
    expect(sentBefore(task, retry({ messageId: 'm-2' }))).toBeUndefined();
    expect(sentBefore({ ...task, history: undefined }, retry())).toBeUndefined();
  });
});
