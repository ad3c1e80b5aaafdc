import type { AgentExtension, JsonObject } from '../protocol/a2a.types.js';
import { SKILL_INPUT_SCHEMA_EXTENSION_URI } from '../skills/skill-input.js';
import type { SkillRegistry } from '../skills/skill.registry.js';

/**
 * The card's declaration of the skills' typed inputs (`@AgentSkill({ input })`), or undefined when no skill has one.
 * `params` map each such skill's id to its input's JSON Schema: AgentSkill has no field for it, and an extension in
 * `capabilities.extensions` is the card's documented place for what the protocol does not define. Not required: a
 * client that ignores it still talks to the skill (plain text, via `parseText`, or a data part it builds otherwise).
 */
export function skillInputSchemaExtension(skills: SkillRegistry): AgentExtension | undefined {
  const schemas = skills.ids().flatMap((id) => {
    const input = skills.get(id)?.input;
    return input ? [[id, input.schema as JsonObject] as const] : [];
  });
  if (schemas.length === 0) return undefined;
  return {
    uri: SKILL_INPUT_SCHEMA_EXTENSION_URI,
    description: "JSON Schemas of the skills' inputs, by skill id: send the input as the message's first data part.",
    required: false,
    // fromEntries defines own members even for a key such as "__proto__".
    params: Object.fromEntries(schemas),
  };
}
