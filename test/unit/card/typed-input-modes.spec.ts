import { withTypedInputModes } from '../../../libs/a2a/src/card/typed-input-modes.js';
import type { RegisteredSkill } from '../../../libs/a2a/src/skills/skill.registry.js';
import type { SkillInput } from '../../../libs/a2a/src/skills/skill-input.js';

const card = { id: 's', name: 'S', description: 'A skill', tags: ['t'] };
const input = { schema: {} } as SkillInput;
const skill = (fields: Partial<RegisteredSkill>): RegisteredSkill =>
  ({ card, handler: undefined, guards: [], security: [], ...fields }) as unknown as RegisteredSkill;

describe('withTypedInputModes', () => {
  it("adds application/json to the card's default modes for a typed-input skill", () => {
    expect(withTypedInputModes(skill({ input }), ['text/plain']).inputModes).toEqual([
      'text/plain',
      'application/json',
    ]);
  });

  it('does not list application/json twice', () => {
    expect(withTypedInputModes(skill({ input }), ['application/json']).inputModes).toEqual(['application/json']);
  });

  it("keeps the skill's own inputModes, even without application/json", () => {
    const own = { ...card, inputModes: ['text/plain'] };
    expect(withTypedInputModes(skill({ input, card: own }), ['text/plain']).inputModes).toEqual(['text/plain']);
  });

  it('leaves a skill without a typed input as it is', () => {
    expect(withTypedInputModes(skill({}), ['text/plain'])).toBe(card);
  });
});
