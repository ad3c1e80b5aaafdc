import { Injectable, type CanActivate } from '@nestjs/common';
import type { A2aSkillHandler } from './a2a-skill.handler.js';
import type { AgentSkillOptions } from './agent-skill.decorator.js';
import type { SkillInput } from './skill-input.js';
import type { AgentSkill } from '../protocol/a2a.types.js';
import type { A2aSecurityRequirement } from '../security/a2a-security.options.js';
import { toCardRequirements } from '../security/security-requirements.js';

export interface RegisteredSkill {
  card: AgentSkill;
  handler: A2aSkillHandler;
  /** From `@UseGuards()` on the skill's class: checked for every message routed to it. */
  guards: CanActivate[];
  /** From `@AgentSkill({ security })`: checked, with the card's, for every message routed to it. */
  security: readonly A2aSecurityRequirement[];
  /** From `@AgentSkill({ restartable, maxAttempts })`: how many runs a message may get when replicas die. */
  maxAttempts?: number;
  /** From `@AgentSkill({ input })`: how each message's typed input is read and validated before the skill runs. */
  input?: SkillInput;
}

/** The skills found at bootstrap, by id, in discovery order. */
@Injectable()
export class SkillRegistry {
  private readonly skills = new Map<string, RegisteredSkill>();
  private defaultId?: string;

  private guarded = false;

  add(options: AgentSkillOptions, handler: A2aSkillHandler, guards: CanActivate[] = [], input?: SkillInput): void {
    const {
      default: isDefault,
      security = [],
      restartable,
      maxAttempts,
      input: _type,
      onInvalidInput: _mode,
      parseText: _parse,
      invalidInputMessage: _ask,
      ...fields
    } = options;
    const card: AgentSkill =
      security.length > 0 ? { ...fields, securityRequirements: toCardRequirements(security) } : fields;
    this.skills.set(card.id, {
      card,
      handler,
      guards,
      security,
      ...(restartable ? { maxAttempts: maxAttempts ?? 3 } : {}),
      ...(input ? { input } : {}),
    });
    if (isDefault) this.defaultId = card.id;
    this.guarded ||= guards.length > 0;
  }

  /** Whether any skill has guards of its own: calls pay for the skill gate only then. */
  get anyGuarded(): boolean {
    return this.guarded;
  }

  get(id: string): RegisteredSkill | undefined {
    return this.skills.get(id);
  }

  /** The skill for a message nobody routed: the one marked default, else the only one. */
  fallback(): RegisteredSkill | undefined {
    if (this.defaultId) return this.skills.get(this.defaultId);
    return this.skills.size === 1 ? this.skills.values().next().value : undefined;
  }

  cards(): AgentSkill[] {
    return [...this.skills.values()].map((s) => s.card);
  }

  ids(): string[] {
    return [...this.skills.keys()];
  }
}
