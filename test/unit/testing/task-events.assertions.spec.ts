import {
  artifact,
  complete,
  fail,
  reply,
  requireInput,
  working,
  type SkillEvent,
  type StreamResponse,
  type Task,
} from '../../../libs/a2a/src/index.js';
import { artifactTextsOf, expectStates, lastMessageTextOf, statesOf } from '../../../libs/a2a/src/testing.js';

const ids = { taskId: 't-1', contextId: 'c-1' };
const agentSays = (text: string) => ({ messageId: 'a-1', role: 'ROLE_AGENT' as const, parts: [{ text }] });

/** What a SendStreamingMessage of "stream 2" gives: the task, two chunks of one artifact, COMPLETED. */
const streamed: StreamResponse[] = [
  { task: { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } } },
  { artifactUpdate: { ...ids, artifact: { artifactId: 'a', parts: [{ text: 'chunk 1' }] } } },
  {
    artifactUpdate: {
      ...ids,
      artifact: { artifactId: 'a', parts: [{ text: 'chunk 2' }, { data: { n: 2 } }, { text: 'more' }] },
      append: true,
    },
  },
  { statusUpdate: { ...ids, status: { state: 'TASK_STATE_COMPLETED', message: agentSays('All done') } } },
];

const emitted: SkillEvent[] = [
  working('Looking'),
  artifact('first', { name: 'x' }),
  artifact([{ text: 'a' }, { text: 'b' }]),
  requireInput('Which city?'),
];

describe('statesOf', () => {
  it("lists a stream's snapshot and status updates, in order", () => {
    expect(statesOf(streamed)).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
  });

  it("lists a skill's status events, repeats included", () => {
    expect(statesOf([working(), working('still'), ...emitted])).toEqual([
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING',
      'TASK_STATE_INPUT_REQUIRED',
    ]);
  });

  it('is empty for a direct reply', () => {
    expect(statesOf([{ message: agentSays('hi') }])).toEqual([]);
    expect(statesOf([reply('hi')])).toEqual([]);
  });
});

describe('artifactTextsOf', () => {
  it("gives each artifact update's text, chunks apart", () => {
    expect(artifactTextsOf(streamed)).toEqual(['chunk 1', 'chunk 2\nmore']);
  });

  it("gives each artifact event's text", () => {
    expect(artifactTextsOf(emitted)).toEqual(['first', 'a\nb']);
  });

  it("gives a task's artifacts", () => {
    const task: Task = {
      id: 't',
      contextId: 'c',
      status: { state: 'TASK_STATE_COMPLETED' },
      artifacts: [{ artifactId: 'a', parts: [{ text: 'x' }] }],
    };
    expect(artifactTextsOf(task)).toEqual(['x']);
    expect(artifactTextsOf({ ...task, artifacts: undefined })).toEqual([]);
  });
});

describe('lastMessageTextOf', () => {
  it('is what the agent said last: a status message or a reply', () => {
    expect(lastMessageTextOf(streamed)).toBe('All done');
    expect(lastMessageTextOf(emitted)).toBe('Which city?');
    expect(lastMessageTextOf([reply([{ text: 'hi' }])])).toBe('hi');
    expect(lastMessageTextOf([{ message: agentSays('hello') }])).toBe('hello');
    expect(lastMessageTextOf([working(), complete()])).toBeUndefined();
  });
});

describe('expectStates', () => {
  it('passes on exactly the expected states', () => {
    expect(() => expectStates(streamed, ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'])).not.toThrow();
    expect(() => expectStates([], [])).not.toThrow();
  });

  it('throws an error naming both sequences and what the agent said last', () => {
    const failed = [working(), fail('The airline is down')];
    expect(() => expectStates(failed, ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'])).toThrow(
      'Expected the states WORKING → COMPLETED\n          but got WORKING → FAILED\n  the agent last said: "The airline is down"',
    );
  });

  it('throws on a prefix, a longer sequence and no states', () => {
    expect(() => expectStates(streamed, ['TASK_STATE_WORKING'])).toThrow(/but got WORKING → COMPLETED/);
    expect(() => expectStates(streamed.slice(0, 1), ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'])).toThrow(
      /but got WORKING$/,
    );
    expect(() => expectStates([reply('hi')], ['TASK_STATE_COMPLETED'])).toThrow(/but got \(none\)/);
  });

  it('reads a generator once', () => {
    function* once() {
      yield working();
      yield complete();
    }
    expect(() => expectStates(once(), ['TASK_STATE_WORKING', 'TASK_STATE_FAILED'])).toThrow(
      /but got WORKING → COMPLETED/,
    );
  });
});
