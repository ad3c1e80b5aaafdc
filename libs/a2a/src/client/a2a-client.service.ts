import { Inject, Injectable, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { A2A_AUDIT_SINK, type A2aAuditSink } from '../audit/a2a-audit.sink.js';
import { A2aAgentClient } from './a2a-agent.client.js';
import { A2A_CLIENT_OPTIONS } from './a2a-client-module-definition.js';
import { A2aClientOptionsError } from './a2a-client.errors.js';
import { A2aClientMessages } from './a2a-client.messages.js';
import {
  withDefaults,
  type A2aAgentDefaults,
  type A2aAgentOptions,
  type A2aClientModuleOptions,
} from './a2a-client.options.js';
import { cardUrlOf } from './agent-card.resolver.js';

/**
 * The A2A client of a Nest app (`A2aClientModule`): one {@link A2aAgentClient} per agent of the options, made on first
 * use and kept (its card cache, connections and tokens shared by every caller), and ad-hoc ones by card URL. All are
 * closed when the app shuts down.
 *
 * When the app has an audit sink (A2aModule's option `audit`, provided as `A2A_AUDIT_SINK`), the clients record
 * their outbound delegations in it too, unless the agent's options or `defaults` set `audit` (a sink of their own, or
 * `false`).
 *
 * ```ts
 * constructor(private readonly a2a: A2aClient) {}
 * const task = await this.a2a.agent('flights').send('Paris to Tokyo, Friday');
 * ```
 */
@Injectable()
export class A2aClient implements OnModuleInit, OnApplicationShutdown {
  private readonly clients = new Map<string, A2aAgentClient>();
  /** The app's A2A_AUDIT_SINK: undefined until looked up, null when the app has none (or it is off). */
  private appAuditSink: A2aAuditSink | null | undefined;

  constructor(
    @Inject(A2A_CLIENT_OPTIONS) private readonly options: A2aClientModuleOptions,
    @Optional() private readonly moduleRef?: ModuleRef,
  ) {}

  /** Looks up the app's audit sink, once every provider exists. */
  onModuleInit(): void {
    this.appAuditSink = this.lookUpAuditSink() ?? null;
  }

  /** The names of the agents registered in the options. */
  get agentNames(): string[] {
    return Object.keys(this.options.agents ?? {});
  }

  /**
   * The client of the agent registered as `name`.
   * @throws A2aClientOptionsError for a name the options do not register.
   */
  agent(name: string): A2aAgentClient {
    const key = `agent:${name}`;
    let client = this.clients.get(key);
    if (!client) {
      const options = Object.hasOwn(this.options.agents ?? {}, name) ? this.options.agents![name] : undefined;
      if (!options) throw new A2aClientOptionsError(A2aClientMessages.unknownAgent(name, this.agentNames));
      client = new A2aAgentClient(this.withAppAudit(withDefaults(options, this.options.defaults)));
      this.clients.set(key, client);
    }
    return client;
  }

  /**
   * A client of the agent whose card is at `cardUrl` (or at the well-known path of that origin), with the module's
   * `defaults` under `options`. The same URL gives the same client, unless `options` are given.
   */
  for(cardUrl: string, options?: A2aAgentDefaults): A2aAgentClient {
    const merged = this.withAppAudit(withDefaults({ ...options, cardUrl }, this.options.defaults));
    if (options !== undefined) return this.track(new A2aAgentClient(merged));
    const key = `url:${cardUrlOf(cardUrl)}`;
    let client = this.clients.get(key);
    if (!client) {
      client = new A2aAgentClient(merged);
      this.clients.set(key, client);
    }
    return client;
  }

  /** Closes every client made so far. */
  async onApplicationShutdown(): Promise<void> {
    const clients = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(clients.map((client) => client.close()));
  }

  /** The options with the app's audit sink when they set no `audit` of their own. */
  private withAppAudit(options: A2aAgentOptions): A2aAgentOptions {
    if (options.audit !== undefined) return options;
    const sink = this.appAuditSink === undefined ? this.lookUpAuditSink() : this.appAuditSink;
    return sink ? { ...options, audit: sink } : options;
  }

  /** A2A_AUDIT_SINK wherever the app provides it (A2aModule exports it; it need not be imported here). */
  private lookUpAuditSink(): A2aAuditSink | undefined {
    try {
      return this.moduleRef?.get<A2aAuditSink | null>(A2A_AUDIT_SINK, { strict: false }) ?? undefined;
    } catch {
      return undefined;
    }
  }

  private track(client: A2aAgentClient): A2aAgentClient {
    this.clients.set(`own:${this.clients.size}:${client.cardUrl}`, client);
    return client;
  }
}
