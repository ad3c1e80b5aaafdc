import { ForbiddenException, type Type } from '@nestjs/common';
import { isObservable, lastValueFrom } from 'rxjs';
import { TransportExecutionContext, type TransportArgs } from '../context/transport-execution-context.js';
import type { RegisteredSkill, SkillRegistry } from './skill.registry.js';

/** Checked once a message is routed to a skill, before the skill runs: the engine calls it with the chosen skill. */
export type SkillGate = (skill: RegisteredSkill) => Promise<void>;

/** The gate of a call's skill guards, or none when no skill has guards (the common case costs nothing). */
export function skillGateOf(skills: SkillRegistry, transport: TransportArgs): SkillGate | undefined {
  return skills.anyGuarded ? skillGuardsGate(transport) : undefined;
}

/**
 * The gate of a call's skill guards: the guards of `@UseGuards()` on the `@AgentSkill` class, run with the call's own
 * arguments and an ExecutionContext whose class is the skill's and handler its `handle`. A guard that returns false
 * gives ForbiddenException, as Nest's own guards do.
 */
function skillGuardsGate(transport: TransportArgs): SkillGate {
  return async (skill) => {
    if (skill.guards.length === 0) return;
    const context = new TransportExecutionContext(transport, skill.handler.constructor as Type, skill.handler.handle);
    for (const guard of skill.guards) {
      const verdict = guard.canActivate(context);
      const allowed = isObservable(verdict) ? await lastValueFrom(verdict) : await verdict;
      if (!allowed) throw new ForbiddenException(`Skill "${skill.card.id}" refused this call`);
    }
  };
}
