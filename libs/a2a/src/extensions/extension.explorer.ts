import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, Reflector } from '@nestjs/core';
import { AGENT_SKILL_METADATA } from '../a2a.constants.js';
import { A2A_MODULE_OPTIONS } from '../a2a-module-definition.js';
import type { A2aModuleOptions } from '../a2a-module.options.js';
import { A2aMessages } from '../a2a.messages.js';
import { InvalidExtensionError } from '../errors/extension-bootstrap.errors.js';
import type { AgentSkillOptions } from '../skills/agent-skill.decorator.js';
import { A2aExtensionMetadataAccessor } from './a2a-extension-metadata.accessor.js';
import { ExtensionRegistry } from './extension.registry.js';

/**
 * Registers the agent's extensions at init: option `extensions` first, then `@A2aExtension` on every provider of the
 * app, which must be an `@AgentSkill` class. Fails bootstrap on a bad or conflicting declaration.
 */
@Injectable()
export class ExtensionExplorer implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly reflector: Reflector,
    private readonly accessor: A2aExtensionMetadataAccessor,
    private readonly registry: ExtensionRegistry,
    @Inject(A2A_MODULE_OPTIONS) private readonly options: A2aModuleOptions,
  ) {}

  onModuleInit(): void {
    for (const declaration of this.options.extensions ?? []) this.registry.declare(declaration);
    for (const wrapper of this.discovery.getProviders()) {
      const type = wrapper.metatype;
      if (!type || typeof type !== 'function') continue;
      const declarations = this.accessor.extensionsOf(type);
      if (declarations.length === 0) continue;
      const skill = this.reflector.get<AgentSkillOptions | undefined>(AGENT_SKILL_METADATA, type);
      if (!skill) throw new InvalidExtensionError(A2aMessages.extensionOutsideSkill(type.name));
      for (const declaration of declarations)
        this.registry.declare(declaration, { id: skill.id, className: type.name });
    }
  }
}
