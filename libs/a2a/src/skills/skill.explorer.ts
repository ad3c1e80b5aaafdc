import { Inject, Injectable, Logger, Optional, type CanActivate, type OnModuleInit, type Type } from '@nestjs/common';
import { GUARDS_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService, ModuleRef, Reflector } from '@nestjs/core';
import { AGENT_SKILL_METADATA } from '../a2a.constants.js';
import { A2aMessages } from '../a2a.messages.js';
import { DuplicateSkillError, InvalidSkillClassError } from '../errors/skill-bootstrap.errors.js';
import { A2aSkillHandler } from './a2a-skill.handler.js';
import type { AgentSkillOptions } from './agent-skill.decorator.js';
import { SkillRegistry } from './skill.registry.js';
import { A2A_SKILL_ROUTER, type SkillRouter } from './skill.router.js';
import { compileSkillInput, declaresInput } from './skill-input.compiler.js';
import type { SkillInput } from './skill-input.js';
import { loadSkillInputPackages, type SkillInputPackages } from './skill-input.packages.js';

/** Finds every `@AgentSkill` provider of the app at init and registers it, failing bootstrap on a bad declaration. */
@Injectable()
export class SkillExplorer implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
    private readonly registry: SkillRegistry,
    private readonly moduleRef: ModuleRef,
    @Optional() @Inject(A2A_SKILL_ROUTER) private readonly router?: SkillRouter,
  ) {}

  private readonly logger = new Logger('A2aModule');

  /** The optional peers of typed inputs, imported for the first skill that declares one. */
  private inputPackages?: Promise<SkillInputPackages>;

  async onModuleInit(): Promise<void> {
    const owners = new Map<string, string>();
    const inputClasses = new Map<string, InputClassUse>();
    let defaultId: string | undefined;
    for (const wrapper of this.discovery.getProviders()) {
      const type = wrapper.metatype;
      if (!type || typeof type !== 'function') continue;
      const options = this.reflector.get<AgentSkillOptions | undefined>(AGENT_SKILL_METADATA, type);
      if (!options) continue;
      const instance: unknown = wrapper.instance;
      if (!(instance instanceof A2aSkillHandler) || typeof instance.handle !== 'function') {
        throw new InvalidSkillClassError(A2aMessages.invalidSkillClass(type.name));
      }
      validateOptions(type.name, options);
      const owner = owners.get(options.id);
      if (owner) throw new DuplicateSkillError(A2aMessages.duplicateSkill(options.id, owner, type.name));
      owners.set(options.id, type.name);
      checkInputClassName(inputClasses, options);
      if (options.default) {
        if (defaultId) throw new InvalidSkillClassError(A2aMessages.twoDefaultSkills(defaultId, options.id));
        defaultId = options.id;
      }
      this.registry.add(options, instance, await this.guardsOf(type as Type), await this.inputOf(type.name, options));
    }
    if (owners.size === 0) throw new InvalidSkillClassError(A2aMessages.noSkills());
    // Not an error: clients that name the skill in the message's metadata are served.
    if (owners.size > 1 && !defaultId && !this.router) this.logger.warn(A2aMessages.noDefaultSkill([...owners.keys()]));
  }

  /** The skill's typed input, compiled; undefined without `input`. The first one loads class-validator & co. */
  private async inputOf(className: string, options: AgentSkillOptions): Promise<SkillInput | undefined> {
    if (!declaresInput(className, options)) return undefined;
    this.inputPackages ??= loadSkillInputPackages(options.id);
    return compileSkillInput(className, options, await this.inputPackages);
  }

  /**
   * The guards `@UseGuards()` names on a skill class, resolved once: Nest registers them as injectables of the skill's
   * module (as for any provider's enhancers), so DI builds them; instances are used as given.
   */
  private guardsOf(type: Type): Promise<CanActivate[]> {
    const declared =
      this.reflector.get<Array<Type<CanActivate> | CanActivate> | undefined>(GUARDS_METADATA, type) ?? [];
    return Promise.all(
      declared.map((guard) => (typeof guard === 'function' ? this.moduleRef.get(guard, { strict: false }) : guard)),
    );
  }
}

/** The first skill seen taking an input class of a given name. */
interface InputClassUse {
  readonly type: unknown;
  readonly skillId: string;
}

// class-validator-jsonschema keys schemas by class name: two classes of one name would share (merge into) one schema.
function checkInputClassName(seen: Map<string, InputClassUse>, options: AgentSkillOptions): void {
  const type = options.input;
  if (typeof type !== 'function') return;
  const earlier = seen.get(type.name);
  if (earlier && earlier.type !== type)
    throw new InvalidSkillClassError(A2aMessages.inputClassNameClash(type.name, earlier.skillId, options.id));
  if (!earlier) seen.set(type.name, { type, skillId: options.id });
}

// The card's AgentSkill has four REQUIRED fields (tags needs at least one entry): catch omissions at bootstrap.
function validateOptions(className: string, options: AgentSkillOptions): void {
  for (const field of ['id', 'name', 'description'] as const) {
    if (typeof options[field] !== 'string' || options[field].trim() === '') {
      throw new InvalidSkillClassError(
        A2aMessages.invalidSkillMetadata(className, `"${field}" must be a non-empty string`),
      );
    }
  }
  if (!Array.isArray(options.tags) || options.tags.length === 0) {
    throw new InvalidSkillClassError(A2aMessages.invalidSkillMetadata(className, '"tags" needs at least one tag'));
  }
}
