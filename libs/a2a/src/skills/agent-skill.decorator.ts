import { SetMetadata, applyDecorators, Injectable } from '@nestjs/common';
import { AGENT_SKILL_METADATA } from '../a2a.constants.js';
import type { AgentSkill } from '../protocol/a2a.types.js';

export interface AgentSkillOptions extends AgentSkill {
  /** Receives new messages that no hint or router assigns to another skill. */
  default?: boolean;
}

/**
 * Declares an A2A skill: the class (which must extend {@link A2aSkillHandler}) handles the messages routed to it, and
 * the options become an entry of the AgentCard's `skills`. Discovered at bootstrap in any module of the app.
 */
export function AgentSkill(options: AgentSkillOptions): ClassDecorator {
  return applyDecorators(Injectable(), SetMetadata(AGENT_SKILL_METADATA, options));
}
