import { Inject, Injectable, Optional } from '@nestjs/common';
import { SKILL_ID_METADATA_KEY } from '../a2a.constants.js';
import { A2A_MODULE_OPTIONS } from '../a2a-module-definition.js';
import type { A2aModuleOptions } from '../a2a-module.options.js';
import { A2aMessages } from '../a2a.messages.js';
import type { A2aCallContext, TaskScope } from '../context/call-context.js';
import { A2aError } from '../errors/a2a.error.js';
import { ExtensionRegistry } from '../extensions/extension.registry.js';
import type { Message, SendMessageRequest, Task } from '../protocol/a2a.types.js';
import { A2aSecurityPolicy } from '../security/a2a-security.policy.js';
import type { SkillGate } from '../skills/skill-guards.js';
import { invalidInputError } from '../skills/skill-input.compiler.js';
import type { SkillInputResult } from '../skills/skill-input.js';
import { A2A_SKILL_ROUTER, type SkillRouter } from '../skills/skill.router.js';
import { SkillRegistry, type RegisteredSkill } from '../skills/skill.registry.js';
import type { StoredTask } from '../store/task.store.js';
import { acceptsAnyOf } from './media-types.js';
import { RunRegistry } from './run.registry.js';

export const SHUTTING_DOWN = 'The agent is shutting down; try again shortly';

/**
 * Whether a message may run a skill, and which: the message's own bounds, routing to a skill, the skill's security
 * and guards, required extensions, the caller's cap on runs, accepted output modes, and the skill's typed input.
 */
@Injectable()
export class SkillAdmission {
  private readonly maxParts: number;

  constructor(
    private readonly skills: SkillRegistry,
    private readonly security: A2aSecurityPolicy,
    private readonly extensions: ExtensionRegistry,
    @Inject(A2A_MODULE_OPTIONS) private readonly options: A2aModuleOptions,
    private readonly runs: RunRegistry,
    @Optional() @Inject(A2A_SKILL_ROUTER) private readonly router?: SkillRouter,
  ) {
    this.maxParts = options.limits?.maxPartsPerMessage ?? 100;
  }

  /** What any message must pass first: its number of parts, and an agent that is not shutting down. */
  admitMessage(message: Message): void {
    if (message.parts.length > this.maxParts) {
      throw A2aError.invalidParams([
        { field: 'message.parts', description: `At most ${this.maxParts} parts are accepted` },
      ]);
    }
    if (this.runs.closing) throw new A2aError('Unavailable', SHUTTING_DOWN);
  }

  /** The skill a new message runs, once routed and admitted (see {@link admitSkill}). */
  async admitNew(
    request: SendMessageRequest,
    call: A2aCallContext,
    scope: TaskScope,
    gate?: SkillGate,
  ): Promise<RegisteredSkill> {
    const skill = await this.route(request, call);
    await this.admitSkill(skill, call, scope, gate);
    return skill;
  }

  /** The skill that runs a stored task's follow-ups. */
  skillOf(stored: StoredTask): RegisteredSkill {
    const skill = this.skills.get(stored.skillId);
    if (!skill) throw new A2aError('Internal', `Task ${stored.task.id} belongs to a skill this agent no longer has`);
    return skill;
  }

  /** The skill's security and guards (`gate`), the extensions it requires, and the caller's cap on runs. */
  async admitSkill(skill: RegisteredSkill, call: A2aCallContext, scope: TaskScope, gate?: SkillGate): Promise<void> {
    this.security.authorizeSkill(skill, call.principal);
    await gate?.(skill);
    this.extensions.requireForSkill(skill.card.id, call.extensions);
    this.checkRunsOf(scope);
  }

  /**
   * The message's typed input (`@AgentSkill({ input })`), read and validated; in mode `'reject'` an invalid one is
   * refused here, before anything is stored. Undefined for a skill without `input`.
   */
  async readInput(
    skill: RegisteredSkill,
    message: Message,
    history: readonly Message[],
    task?: Task,
  ): Promise<SkillInputResult | undefined> {
    if (!skill.input) return undefined;
    const input = await skill.input.read(message, { history, task });
    if (!input.valid && skill.input.mode === 'reject') throw invalidInputError(skill.card.id, input.violations);
    return input;
  }

  /** A caller that accepts none of the skill's output modes gets ContentTypeNotSupportedError (spec §3.1.1). */
  checkOutputModes(request: SendMessageRequest, skill: RegisteredSkill): void {
    const accepted = request.configuration?.acceptedOutputModes;
    if (!accepted?.length) return;
    const produced = skill.card.outputModes ?? this.options.card.defaultOutputModes ?? ['text/plain'];
    if (!acceptsAnyOf(accepted, produced)) {
      throw new A2aError(
        'ContentTypeNotSupported',
        `Skill "${skill.card.id}" produces ${produced.join(', ')}; none is in acceptedOutputModes`,
      );
    }
  }

  private async route(request: SendMessageRequest, call: A2aCallContext): Promise<RegisteredSkill> {
    const hint = request.message.metadata?.[SKILL_ID_METADATA_KEY] ?? request.metadata?.[SKILL_ID_METADATA_KEY];
    const id = typeof hint === 'string' ? hint : await this.router?.route(request.message, this.skills.cards(), call);
    if (id !== undefined) {
      const skill = this.skills.get(id);
      if (!skill)
        throw A2aError.invalidParams([
          { field: 'message.metadata', description: A2aMessages.unknownSkill(id, this.skills.ids()) },
        ]);
      return skill;
    }
    const fallback = this.skills.fallback();
    if (!fallback)
      throw A2aError.invalidParams([
        { field: 'message.metadata', description: A2aMessages.unroutable(this.skills.ids()) },
      ]);
    return fallback;
  }

  /** Option `security.maxActiveTasksPerPrincipal`: one caller cannot occupy the agent with runs. */
  private checkRunsOf(scope: TaskScope): void {
    if (this.runs.runsOf(scope.owner) >= this.runs.maxRunsPerOwner) {
      throw new A2aError('TooManyRequests', `At most ${this.runs.maxRunsPerOwner} tasks of one caller may run at once`);
    }
  }
}
