import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import { createHash } from 'node:crypto';
import { PROTOCOL_VERSION } from '../a2a.constants.js';
import { A2aMessages } from '../a2a.messages.js';
import { A2A_MODULE_OPTIONS } from '../a2a-module-definition.js';
import type { A2aModuleOptions } from '../a2a-module.options.js';
import { A2A_BINDING_MOUNTS, type BindingMounts } from '../binding-mounts.js';
import type { AgentCard, AgentInterface } from '../protocol/a2a.types.js';
import { SkillRegistry } from '../skills/skill.registry.js';
import { A2aSecurityPolicy } from '../security/a2a-security.policy.js';
import { ExtensionRegistry } from '../extensions/extension.registry.js';
import { AgentCardSigner } from './signing/agent-card.signer.js';
import { skillInputSchemaExtension } from './skill-input-schema.extension.js';
import { withTypedInputModes } from './typed-input-modes.js';
import { AgentCardNotBuiltError } from './agent-card-not-built.error.js';
import { A2A_COMPAT_INTERFACES, type CompatInterface } from './compat-interfaces.js';

/**
 * Builds the public AgentCard once, from the module options, the mounted bindings and the discovered skills, and keeps
 * its serialized form and ETag so serving it costs nothing. With option `cardSigning`, what it serves is signed.
 *
 * @hideconstructor
 */
@Injectable()
export class AgentCardService implements OnApplicationBootstrap {
  private built?: { card: AgentCard; json: string; etag: string };
  /** Interfaces of plugin bindings (gRPC), added once they serve: configured alone, they serve nothing. */
  private readonly pluginInterfaces: AgentInterface[] = [];
  private readonly logger = new Logger(AgentCardService.name);
  /** Builds started, and the one served: signing is async, so a later build may be ready first. */
  private builds = 0;
  private servedBuild = 0;

  constructor(
    @Inject(A2A_MODULE_OPTIONS) private readonly options: A2aModuleOptions,
    @Inject(A2A_BINDING_MOUNTS) private readonly mounts: BindingMounts,
    private readonly skills: SkillRegistry,
    private readonly config: ApplicationConfig,
    private readonly security: A2aSecurityPolicy,
    private readonly signer: AgentCardSigner,
    private readonly extensions: ExtensionRegistry,
    @Inject(A2A_COMPAT_INTERFACES) private readonly compatInterfaces: readonly CompatInterface[],
  ) {}

  /** Builds the card: skills are discovered in onModuleInit, so it is built once all of that is done. */
  async onApplicationBootstrap(): Promise<void> {
    await this.publish();
  }

  /**
   * Lists a plugin binding's interface from now on, after the HTTP ones (rebuilding the card if it is already served).
   * The gRPC binding calls it once its server listens.
   */
  advertise(entry: Omit<AgentInterface, 'protocolVersion'>): void {
    this.pluginInterfaces.push({ ...entry, protocolVersion: PROTOCOL_VERSION });
    if (this.builds > 0)
      this.publish().catch((error: unknown) => this.logger.error(A2aMessages.cardResigningFailed(), error));
  }

  /** `card` with signatures of option `cardSigning`'s keys over its content, replacing any it had; as is without it. */
  signed(card: AgentCard): Promise<AgentCard> {
    return this.signer.sign(card);
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
    if (!this.built) throw new AgentCardNotBuiltError('AgentCardService used before application bootstrap');
    return this.built;
  }

  private async publish(): Promise<void> {
    const build = ++this.builds;
    const unsigned = this.build();
    // Until a signed card is ready the previous one stays served; unsigned, it is served at once.
    const card = this.signer.enabled ? await this.signer.sign(unsigned) : unsigned;
    if (build < this.servedBuild) return;
    this.servedBuild = build;
    const json = JSON.stringify(card);
    this.built = { card, json, etag: `"${createHash('sha256').update(json).digest('base64url').slice(0, 27)}"` };
  }

  private build(): AgentCard {
    const o = this.options.card;
    const extensions = this.extensions.cardExtensions();
    const defaultInputModes = o.defaultInputModes ?? ['text/plain'];
    const card: AgentCard = {
      name: o.name,
      description: o.description,
      supportedInterfaces: this.interfaces(),
      version: o.version ?? '1.0.0',
      capabilities: {
        streaming: true,
        pushNotifications: this.options.push !== undefined,
        // spec §4.6: absent when the agent declares none, as ProtoJSON omits an empty list.
        ...(extensions ? { extensions } : {}),
        extendedAgentCard: this.security.extendedCard !== undefined,
      },
      ...this.security.cardSecurity(),
      defaultInputModes,
      defaultOutputModes: o.defaultOutputModes ?? ['text/plain'],
      skills: this.skills
        .ids()
        .map((id) => this.security.skillCard(withTypedInputModes(this.skills.get(id)!, defaultInputModes))),
    };
    if (o.provider) card.provider = o.provider;
    if (o.documentationUrl) card.documentationUrl = o.documentationUrl;
    if (o.iconUrl) card.iconUrl = o.iconUrl;
    const inputSchemas = skillInputSchemaExtension(this.skills);
    if (inputSchemas) card.capabilities.extensions = [...(card.capabilities.extensions ?? []), inputSchemas];
    return card;
  }

  /** JSON-RPC first (most clients' first choice), then HTTP+JSON, then plugins (gRPC): the card's preference (spec §8.3.1). */
  private interfaces(): AgentInterface[] {
    // The bindings' routes sit below the app's global prefix (read at bootstrap, after main.ts has set it).
    const prefix = this.config.getGlobalPrefix().replace(/^\/*/, '/').replace(/\/+$/, '');
    const base = `${(this.options.baseUrl ?? 'http://localhost:3000').replace(/\/+$/, '')}${prefix}`;
    const list: AgentInterface[] = [];
    if (this.mounts.jsonRpc)
      list.push({
        url: `${base}${this.mounts.jsonRpc}`,
        protocolBinding: 'JSONRPC',
        protocolVersion: PROTOCOL_VERSION,
      });
    if (this.mounts.rest !== undefined)
      list.push({ url: `${base}${this.mounts.rest}`, protocolBinding: 'HTTP+JSON', protocolVersion: PROTOCOL_VERSION });
    // Option compat: a binding that speaks another version too says so by a second entry (spec §3.6.2), after every 1.0 one.
    const legacy: AgentInterface[] = [];
    for (const entry of this.compatInterfaces) {
      const mount = this.mounts[entry.mount];
      if (mount !== undefined)
        legacy.push({
          url: `${base}${mount}`,
          protocolBinding: entry.protocolBinding,
          protocolVersion: entry.protocolVersion,
        });
    }
    return [...list, ...this.pluginInterfaces, ...legacy];
  }
}
