import { isMessage, isTask, type Message, type Task } from '../../../libs/a2a/src/index.js';

const task: Task = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } };
const message: Message = { messageId: 'm-1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] };

describe('isTask / isMessage', () => {
  it('tell a SendMessage result apart', () => {
    expect([isTask(task), isMessage(task)]).toEqual([true, false]);
    expect([isTask(message), isMessage(message)]).toEqual([false, true]);
  });

  it('narrow the union, so a task id is read without a cast', () => {
    const ids = [task, message].map((result: Task | Message) => (isTask(result) ? result.id : result.messageId));
    expect(ids).toEqual(['t-1', 'm-1']);
  });

  it.each([null, undefined, 'task', [], { id: 1, status: {} }, { id: 't', status: 'x' }, { messageId: 'm' }])(
    'refuse %p',
    (value) => {
      expect(isTask(value)).toBe(false);
      expect(isMessage(value)).toBe(false);
    },
  );

  it('are the same functions on nestjs-a2a/client', async () => {
    const client = await import('../../../libs/a2a/src/client.js');
    expect([client.isTask, client.isMessage]).toEqual([isTask, isMessage]);
  });
});
