import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import { createHash } from 'node:crypto';
import { PROTOCOL_VERSION } from '../a2a.constants.js';
import { A2A_MODULE_OPTIONS } from '../a2a-module-definition.js';
import type { A2aModuleOptions } from '../a2a-module.options.js';
import { A2A_BINDING_MOUNTS, type BindingMounts } from '../bindings/binding-mounts.js';
import type { AgentCard, AgentInterface } from '../protocol/a2a.types.js';
import { SkillRegistry } from '../skills/skill.registry.js';
import { A2aSecurityPolicy } from '../security/a2a-security.policy.js';

/**
 * Builds the public AgentCard once, from the module options, the mounted bindings and the discovered skills, and keeps
 * its serialized form and ETag so serving it costs nothing.
 */
@Injectable()
export class AgentCardService implements OnApplicationBootstrap {
  private built?: { card: AgentCard; json: string; etag: string };
  /** Interfaces of plugin bindings (gRPC), added once they serve: configured alone, they serve nothing. */
  private readonly pluginInterfaces: AgentInterface[] = [];

  constructor(
    @Inject(A2A_MODULE_OPTIONS) private readonly options: A2aModuleOptions,
    @Inject(A2A_BINDING_MOUNTS) private readonly mounts: BindingMounts,
    private readonly skills: SkillRegistry,
    private readonly config: ApplicationConfig,
    private readonly security: A2aSecurityPolicy,
  ) {}

  // Skills are discovered in onModuleInit; the card is built once all of that is done.
  onApplicationBootstrap(): void {
    this.publish();
  }

  /**
   * Lists a plugin binding's interface from now on, after the HTTP ones (rebuilding the card if it is already served).
   * The gRPC binding calls it once its server listens.
   */
  advertise(entry: Omit<AgentInterface, 'protocolVersion'>): void {
    this.pluginInterfaces.push({ ...entry, protocolVersion: PROTOCOL_VERSION });
    if (this.built) this.publish();
  }

  /** The card as served (do not mutate). */
  get card(): AgentCard {
    return this.current().card;
  }

  get json(): string {
    return this.current().json;
  }

  get maxAgeSeconds(): number {
    return this.options.cardMaxAgeSeconds ?? 300;
  }

  get etag(): string {
    return this.current().etag;
  }

  private current() {
    if (!this.built) throw new Error('AgentCardService used before application bootstrap');
    return this.built;
  }

  private publish(): void {
    const card = this.build();
    const json = JSON.stringify(card);
    this.built = { card, json, etag: `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"` };
  }

  private build(): AgentCard {
    const o = this.options.card;
    const card: AgentCard = {
      name: o.name,
      description: o.description,
      supportedInterfaces: this.interfaces(),
      version: o.version ?? '1.0.0',
      capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: this.security.extendedCard !== undefined },
      ...this.security.cardSecurity(),
      defaultInputModes: o.defaultInputModes ?? ['text/plain'],
      defaultOutputModes: o.defaultOutputModes ?? ['text/plain'],
      skills: this.skills.cards().map((skill) => this.security.skillCard(skill)),
    };
    if (o.provider) card.provider = o.provider;
    if (o.documentationUrl) card.documentationUrl = o.documentationUrl;
    if (o.iconUrl) card.iconUrl = o.iconUrl;
    return card;
  }

  /** JSON-RPC first (most clients' first choice), then HTTP+JSON, then plugins (gRPC): the card's preference (R13). */
  private interfaces(): AgentInterface[] {
    // The bindings' routes sit below the app's global prefix (read at bootstrap, after main.ts has set it).
    const prefix = this.config.getGlobalPrefix().replace(/^\/*/, '/').replace(/\/+$/, '');
    const base = `${(this.options.baseUrl ?? 'http://localhost:3000').replace(/\/+$/, '')}${prefix}`;
    const list: AgentInterface[] = [];
    if (this.mounts.jsonRpc) list.push({ url: `${base}${this.mounts.jsonRpc}`, protocolBinding: 'JSONRPC', protocolVersion: PROTOCOL_VERSION });
    if (this.mounts.rest !== undefined) list.push({ url: `${base}${this.mounts.rest}`, protocolBinding: 'HTTP+JSON', protocolVersion: PROTOCOL_VERSION });
    return [...list, ...this.pluginInterfaces];
  }
}
