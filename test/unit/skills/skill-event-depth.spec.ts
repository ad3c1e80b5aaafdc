import { tooDeepInSkillEvent } from '../../../libs/a2a/src/engine/skill-event-depth.js';
import { artifact, complete, reply, working, type JsonObject } from '../../../libs/a2a/src/index.js';

const deep = (levels: number): JsonObject => {
  let value: JsonObject = {};
  for (let i = 1; i < levels; i++) value = { x: value };
  return value;
};

describe('tooDeepInSkillEvent', () => {
  it('passes events whose free-form values stay within the limit', () => {
    expect(tooDeepInSkillEvent(artifact({ data: deep(3) }), 3)).toBeUndefined();
    expect(tooDeepInSkillEvent(working('thinking'), 3)).toBeUndefined();
    expect(tooDeepInSkillEvent(complete(), 3)).toBeUndefined();
    expect(tooDeepInSkillEvent(reply('hi'), 3)).toBeUndefined();
  });

  it('finds a too-deep data part, metadata or part field in every kind of event', () => {
    expect(tooDeepInSkillEvent(artifact({ data: deep(4) }), 3)).toBe('artifact.parts[0].data.x.x.x');
    expect(
      tooDeepInSkillEvent(
        { kind: 'artifact', artifact: { artifactId: 'a', parts: [{ text: 't' }], metadata: deep(4) } },
        3,
      ),
    ).toBe('artifact.metadata.x.x.x');
    expect(tooDeepInSkillEvent({ kind: 'status', state: 'TASK_STATE_WORKING', metadata: deep(4) }, 3)).toBe(
      'metadata.x.x.x',
    );
    expect(tooDeepInSkillEvent({ kind: 'status', state: 'TASK_STATE_WORKING', message: [{ data: deep(4) }] }, 3)).toBe(
      'message.parts[0].data.x.x.x',
    );
    expect(tooDeepInSkillEvent({ kind: 'reply', message: { parts: [{ text: 't' }], metadata: deep(4) } }, 3)).toBe(
      'message.metadata.x.x.x',
    );
    expect(tooDeepInSkillEvent({ kind: 'reply', message: [{ text: 't', metadata: deep(4) }] }, 3)).toBe(
      'message.parts[0].metadata.x.x.x',
    );
  });
});
