import {
  artifact,
  complete,
  fail,
  reject,
  reply,
  requireAuth,
  requireInput,
  working,
} from '../../../libs/a2a/src/skills/skill-events.helpers.js';

describe('skill event helpers', () => {
  it.each([
    ['working', working, 'TASK_STATE_WORKING'],
    ['requireInput', requireInput, 'TASK_STATE_INPUT_REQUIRED'],
    ['requireAuth', requireAuth, 'TASK_STATE_AUTH_REQUIRED'],
    ['complete', complete, 'TASK_STATE_COMPLETED'],
    ['fail', fail, 'TASK_STATE_FAILED'],
    ['reject', reject, 'TASK_STATE_REJECTED'],
  ] as const)('%s() is a status event to %s', (_name, helper, state) => {
    expect(helper('hello')).toEqual({ kind: 'status', state, message: 'hello' });
    expect(helper([{ text: 'a' }, { data: { n: 1 } }])).toEqual({
      kind: 'status',
      state,
      message: [{ text: 'a' }, { data: { n: 1 } }],
    });
  });

  it('lets working() and complete() go without a message', () => {
    expect(working()).toEqual({ kind: 'status', state: 'TASK_STATE_WORKING', message: undefined });
    expect(complete()).toEqual({ kind: 'status', state: 'TASK_STATE_COMPLETED', message: undefined });
  });

  it('reply() is a direct message', () => {
    expect(reply('hi')).toEqual({ kind: 'reply', message: 'hi' });
  });

  describe('artifact()', () => {
    it('wraps text in one text part, with a fresh id each time', () => {
      const a = artifact('result');
      const b = artifact('result');
      expect(a).toEqual({
        kind: 'artifact',
        artifact: { artifactId: expect.any(String), parts: [{ text: 'result' }] },
      });
      expect(a.artifact.artifactId).not.toBe(b.artifact.artifactId);
    });

    it('takes parts as they are', () => {
      const parts = [{ text: 'see' }, { url: 'https://example.com/a.pdf', mediaType: 'application/pdf' }];
      expect(artifact(parts, { artifactId: 'a-1' }).artifact).toEqual({ artifactId: 'a-1', parts });
    });

    it('turns structured data into one data part, JSON by default', () => {
      expect(artifact({ data: { city: 'Paris' } }, { artifactId: 'a-1' }).artifact.parts).toEqual([
        { data: { city: 'Paris' }, mediaType: 'application/json' },
      ]);
      expect(
        artifact({ data: [1, 2], mediaType: 'application/vnd.example+json' }, { artifactId: 'a-1' }).artifact.parts,
      ).toEqual([{ data: [1, 2], mediaType: 'application/vnd.example+json' }]);
    });

    it('puts name and description on the artifact, and append/lastChunk/metadata on the event', () => {
      const event = artifact('chunk', {
        artifactId: 'a-1',
        name: 'report',
        description: 'The report',
        append: true,
        lastChunk: true,
        metadata: { page: 2 },
      });
      expect(event).toEqual({
        kind: 'artifact',
        artifact: { artifactId: 'a-1', name: 'report', description: 'The report', parts: [{ text: 'chunk' }] },
        append: true,
        lastChunk: true,
        metadata: { page: 2 },
      });
    });

    it('leaves append and lastChunk off when false', () => {
      const event = artifact('x', { artifactId: 'a-1', append: false, lastChunk: false });
      expect('append' in event).toBe(false);
      expect('lastChunk' in event).toBe(false);
      expect('metadata' in event).toBe(false);
    });
  });
});
