import { applyChange } from '../../../libs/a2a/src/task/task-reducer.js';
import type { Artifact, Message, Task, TaskArtifactUpdateEvent } from '../../../libs/a2a/src/protocol/a2a.types.js';

const base = (): Task => ({
  id: 't-1',
  contextId: 'c-1',
  status: { state: 'TASK_STATE_SUBMITTED', timestamp: '2026-01-01T00:00:00.000Z' },
});

const agentSays = (text: string): Message => ({
  messageId: `m-${text}`,
  role: 'ROLE_AGENT',
  parts: [{ text }],
  contextId: 'c-1',
  taskId: 't-1',
});

const artifactUpdate = (artifact: Artifact, extra: Partial<TaskArtifactUpdateEvent> = {}) => ({
  artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact, ...extra },
});

describe('applyChange', () => {
  describe('status updates', () => {
    it('replace the status', () => {
      const task = base();
      const status = { state: 'TASK_STATE_WORKING' as const, timestamp: '2026-01-01T00:00:01.000Z' };
      applyChange(task, { statusUpdate: { taskId: 't-1', contextId: 'c-1', status } });
      expect(task.status).toEqual(status);
      expect(task.history).toBeUndefined();
    });

    it('add the status message to the history', () => {
      const task = base();
      const question = agentSays('Which date?');
      applyChange(task, {
        statusUpdate: {
          taskId: 't-1',
          contextId: 'c-1',
          status: { state: 'TASK_STATE_INPUT_REQUIRED', message: question },
        },
      });
      expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      expect(task.history).toEqual([question]);
    });
  });

  describe('history messages', () => {
    it('append in order', () => {
      const task = base();
      const first: Message = { messageId: 'u-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };
      const second: Message = { messageId: 'u-2', role: 'ROLE_USER', parts: [{ text: 'again' }] };
      applyChange(task, { historyMessage: first });
      applyChange(task, { historyMessage: second });
      expect(task.history?.map((m) => m.messageId)).toEqual(['u-1', 'u-2']);
      expect(task.status.state).toBe('TASK_STATE_SUBMITTED');
    });
  });

  describe('history bound', () => {
    it('drops the oldest messages beyond maxHistoryLength', () => {
      const task = base();
      for (const text of ['1', '2', '3']) applyChange(task, { historyMessage: agentSays(text) }, 2);
      applyChange(
        task,
        {
          statusUpdate: {
            taskId: 't-1',
            contextId: 'c-1',
            status: { state: 'TASK_STATE_WORKING', message: agentSays('4') },
          },
        },
        2,
      );
      expect(task.history?.map((m) => m.parts[0].text)).toEqual(['3', '4']);
    });

    it('keeps everything by default', () => {
      const task = base();
      for (let i = 0; i < 1500; i++) applyChange(task, { historyMessage: agentSays(`${i}`) });
      expect(task.history).toHaveLength(1500);
    });
  });

  describe('artifact updates', () => {
    it('add a new artifact', () => {
      const task = base();
      applyChange(task, artifactUpdate({ artifactId: 'a-1', name: 'report', parts: [{ text: 'one' }] }));
      expect(task.artifacts).toEqual([{ artifactId: 'a-1', name: 'report', parts: [{ text: 'one' }] }]);
    });

    it('keep artifacts with other ids side by side, in arrival order', () => {
      const task = base();
      applyChange(task, artifactUpdate({ artifactId: 'a-1', parts: [{ text: 'one' }] }));
      applyChange(task, artifactUpdate({ artifactId: 'a-2', parts: [{ text: 'two' }] }));
      expect(task.artifacts?.map((a) => a.artifactId)).toEqual(['a-1', 'a-2']);
    });

    it('append parts to the artifact with the same id when append is set', () => {
      const task = base();
      applyChange(task, artifactUpdate({ artifactId: 'a-1', name: 'report', parts: [{ text: 'chunk 1' }] }));
      applyChange(task, artifactUpdate({ artifactId: 'a-1', parts: [{ text: 'chunk 2' }] }, { append: true }));
      applyChange(
        task,
        artifactUpdate({ artifactId: 'a-1', parts: [{ text: 'chunk 3' }] }, { append: true, lastChunk: true }),
      );
      expect(task.artifacts).toEqual([
        { artifactId: 'a-1', name: 'report', parts: [{ text: 'chunk 1' }, { text: 'chunk 2' }, { text: 'chunk 3' }] },
      ]);
    });

    it('treat append on an unknown id as a new artifact', () => {
      const task = base();
      applyChange(task, artifactUpdate({ artifactId: 'a-9', parts: [{ text: 'x' }] }, { append: true }));
      expect(task.artifacts).toEqual([{ artifactId: 'a-9', parts: [{ text: 'x' }] }]);
    });

    it('replace the artifact with the same id when append is not set', () => {
      const task = base();
      applyChange(
        task,
        artifactUpdate({ artifactId: 'a-1', name: 'draft', description: 'first try', parts: [{ text: 'old' }] }),
      );
      applyChange(task, artifactUpdate({ artifactId: 'a-1', name: 'final', parts: [{ text: 'new' }] }));
      expect(task.artifacts).toEqual([{ artifactId: 'a-1', name: 'final', parts: [{ text: 'new' }] }]);
    });

    it.each([
      ['a new artifact', [] as const],
      ['a replaced artifact', [{ artifactId: 'a-1', parts: [{ text: 'before' }] }]],
    ])('never share the event’s parts array (%s)', (_label, existing) => {
      const task = base();
      for (const artifact of existing) applyChange(task, artifactUpdate(structuredClone(artifact)));
      const event = artifactUpdate({ artifactId: 'a-1', parts: [{ text: 'mine' }] });
      applyChange(task, event);
      expect(task.artifacts![0].parts).not.toBe(event.artifactUpdate.artifact.parts);
      event.artifactUpdate.artifact.parts.push({ text: 'sneaked in' });
      expect(task.artifacts![0].parts).toEqual([{ text: 'mine' }]);
    });

    it('never share the event’s parts array when appending', () => {
      const task = base();
      const first = artifactUpdate({ artifactId: 'a-1', parts: [{ text: '1' }] });
      applyChange(task, first);
      const second = artifactUpdate({ artifactId: 'a-1', parts: [{ text: '2' }] }, { append: true });
      applyChange(task, second);
      first.artifactUpdate.artifact.parts.push({ text: 'x' });
      second.artifactUpdate.artifact.parts.push({ text: 'y' });
      expect(task.artifacts![0].parts).toEqual([{ text: '1' }, { text: '2' }]);
    });
  });

  describe('with a copy function', () => {
    const copy = <T>(value: T): T => structuredClone(value);

    it('keeps copies of exactly what the task holds on to', () => {
      const task = base();
      const question = agentSays('Which date?');
      const status = { state: 'TASK_STATE_INPUT_REQUIRED' as const, message: question };
      applyChange(task, { statusUpdate: { taskId: 't-1', contextId: 'c-1', status } }, Infinity, copy);
      const added = artifactUpdate({ artifactId: 'a-1', parts: [{ text: '1' }] });
      const appended = artifactUpdate({ artifactId: 'a-1', parts: [{ text: '2' }] }, { append: true });
      applyChange(task, added, Infinity, copy);
      applyChange(task, appended, Infinity, copy);
      const answer: Message = { messageId: 'u-1', role: 'ROLE_USER', parts: [{ text: 'Friday' }] };
      applyChange(task, { historyMessage: answer }, Infinity, copy);

      question.parts[0].text = 'changed';
      added.artifactUpdate.artifact.name = 'changed';
      appended.artifactUpdate.artifact.parts[0].text = 'changed';
      answer.parts[0].text = 'changed';
      expect(task).toEqual({
        ...base(),
        status: { state: 'TASK_STATE_INPUT_REQUIRED', message: agentSays('Which date?') },
        history: [agentSays('Which date?'), { messageId: 'u-1', role: 'ROLE_USER', parts: [{ text: 'Friday' }] }],
        artifacts: [{ artifactId: 'a-1', parts: [{ text: '1' }, { text: '2' }] }],
      });
      // The status message and its history entry stay one object, as without a copy function.
      expect(task.history![0]).toBe(task.status.message);
    });
  });
});
