import { SetMetadata, applyDecorators, Injectable } from '@nestjs/common';
import { AGENT_SKILL_METADATA } from '../a2a.constants.js';
import type { AgentSkill } from '../protocol/a2a.types.js';
import type { A2aSecurityRequirement } from '../security/a2a-security.options.js';
import type { SkillInputOptions } from './skill-input.js';

/** The skill's card entry, its routing and security, and (`input`, `onInvalidInput`, `parseText`) its typed input. */
export interface AgentSkillOptions<TInput = unknown>
  extends Omit<AgentSkill, 'securityRequirements'>, SkillInputOptions<TInput> {
  /** Receives new messages that no hint or router assigns to another skill. */
  default?: boolean;
  /**
   * What a caller needs, on top of the card's requirements, for messages to reach this skill: alternatives of scheme
   * name → scopes, e.g. `[{ bearer: ['flights:book'] }]`, naming schemes of option `security.schemes`. Published as
   * the skill's `securityRequirements`; a missing credential answers 401, missing scopes 403, before any task exists.
   */
  security?: readonly A2aSecurityRequirement[];
  /**
   * With replicas sharing a store: when the replica running this skill dies, another one runs it again (up to
   * `maxAttempts` runs in all) instead of failing the task. Only for skills that may safely run twice (no booking,
   * no payment), and that need no credential of the caller: a re-run gets the caller's principal, not its token.
   */
  restartable?: boolean;
  /** Most runs of one message, the first included, for a restartable skill. Default 3. */
  maxAttempts?: number;
}

/**
 * Declares an A2A skill: the class (which must extend {@link A2aSkillHandler}) handles the messages routed to it, and
 * the options become an entry of the AgentCard's `skills`. Discovered at bootstrap in any module of the app.
 */
export function AgentSkill<TInput = unknown>(options: AgentSkillOptions<TInput>): ClassDecorator {
  return applyDecorators(Injectable(), SetMetadata(AGENT_SKILL_METADATA, options));
}
