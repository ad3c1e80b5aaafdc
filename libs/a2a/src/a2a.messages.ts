/** Every bootstrap and routing message in one place, so tests import them instead of copying strings. */
export const A2aMessages = {
  duplicateSkill: (id: string, first: string, second: string) =>
    `Two @AgentSkill classes use the id "${id}": ${first} and ${second}. Skill ids must be unique.`,
  invalidSkillClass: (name: string) =>
    `${name} is decorated with @AgentSkill but does not extend A2aSkillHandler (it needs a handle(context) method).`,
  invalidSkillMetadata: (name: string, problem: string) => `@AgentSkill on ${name}: ${problem}.`,
  noSkills: () => 'A2aModule found no @AgentSkill class: an agent needs at least one skill. Add one to any module\'s providers.',
  twoDefaultSkills: (a: string, b: string) => `Both "${a}" and "${b}" are marked default: true; at most one skill can be.`,
  unknownSkill: (id: string, known: string[]) => `No skill "${id}"; this agent's skills are: ${known.join(', ')}.`,
  unroutable: (known: string[]) =>
    `This agent has several skills (${known.join(', ')}) and none was chosen for the message: name one in message.metadata["nestjs-a2a/skillId"].`,
  invalidLimit: (name: string, value: unknown, expected: string) => `A2aModule option limits.${name} is ${String(value)}; it must be ${expected}.`,
  unsupportedHttpAdapter: (type: string) =>
    `nestjs-a2a serves its HTTP bindings on @nestjs/platform-express or @nestjs/platform-fastify; this app uses "${type}".`,
} as const;
