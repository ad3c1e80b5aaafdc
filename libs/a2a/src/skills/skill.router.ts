import type { A2aCallContext } from '../context/call-context.js';
import type { Message } from '../protocol/a2a.types.js';
import type { AgentSkill } from '../protocol/a2a.types.js';

/**
 * Chooses the skill for a message that starts a new task and names none in its metadata. Return a skill id, or
 * undefined to fall back to the default (or only) skill. Pass the class as the module's `router` option.
 */
export interface SkillRouter {
  /** The id of the skill that takes `message`, or undefined for the default (or only) one. */
  route(
    message: Message,
    skills: readonly AgentSkill[],
    call: A2aCallContext,
  ): string | undefined | Promise<string | undefined>;
}

/** DI token under which the user's router (if any) is provided. */
export const A2A_SKILL_ROUTER = Symbol('A2A_SKILL_ROUTER');
