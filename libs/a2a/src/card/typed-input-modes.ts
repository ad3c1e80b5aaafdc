import type { AgentSkill } from '../protocol/a2a.types.js';
import type { RegisteredSkill } from '../skills/skill.registry.js';

/** The media type of a typed input sent as a data part. */
const JSON_MEDIA_TYPE = 'application/json';

/**
 * The card entry of `skill`: a skill with a typed input (`@AgentSkill({ input })`) and no `inputModes` of its own lists
 * the card's default input modes plus `application/json`, so clients see that it takes a data part (a skill's modes
 * override the card's defaults, proto AgentSkill.input_modes). Any other entry is returned as is.
 */
export function withTypedInputModes(skill: RegisteredSkill, defaultInputModes: readonly string[]): AgentSkill {
  if (!skill.input || skill.card.inputModes !== undefined) return skill.card;
  const modes = defaultInputModes.includes(JSON_MEDIA_TYPE)
    ? [...defaultInputModes]
    : [...defaultInputModes, JSON_MEDIA_TYPE];
  return { ...skill.card, inputModes: modes };
}
