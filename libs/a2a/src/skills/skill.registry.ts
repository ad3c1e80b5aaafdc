import { Injectable } from '@nestjs/common';
import type { A2aSkillHandler } from './a2a-skill.handler.js';
import type { AgentSkillOptions } from './agent-skill.decorator.js';
import type { AgentSkill } from '../protocol/a2a.types.js';

export interface RegisteredSkill {
  card: AgentSkill;
  handler: A2aSkillHandler;
}

/** The skills found at bootstrap, by id, in discovery order. */
@Injectable()
export class SkillRegistry {
  private readonly skills = new Map<string, RegisteredSkill>();
  private defaultId?: string;

  add(options: AgentSkillOptions, handler: A2aSkillHandler): void {
    const { default: isDefault, ...card } = options;
    this.skills.set(card.id, { card, handler });
    if (isDefault) this.defaultId = card.id;
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
