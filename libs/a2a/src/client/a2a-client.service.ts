import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { A2aAgentClient } from './a2a-agent.client.js';
import { A2A_CLIENT_OPTIONS } from './a2a-client-module-definition.js';
import { A2aClientOptionsError } from './a2a-client.errors.js';
import { A2aClientMessages } from './a2a-client.messages.js';
import { withDefaults, type A2aAgentDefaults, type A2aClientModuleOptions } from './a2a-client.options.js';
import { cardUrlOf } from './agent-card.resolver.js';

/**
 * The A2A client of a Nest app (`A2aClientModule`): one {@link A2aAgentClient} per agent of the options, made on first
 * use and kept (its card cache, connections and tokens shared by every caller), and ad-hoc ones by card URL. All are
 * closed when the app shuts down.
 *
 * ```ts
 * constructor(private readonly a2a: A2aClient) {}
 * const task = await this.a2a.agent('flights').send('Paris to Tokyo, Friday');
 * ```
 */
@Injectable()
export class A2aClient implements OnApplicationShutdown {
  private readonly clients = new Map<string, A2aAgentClient>();

  constructor(@Inject(A2A_CLIENT_OPTIONS) private readonly options: A2aClientModuleOptions) {}

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
      client = new A2aAgentClient(withDefaults(options, this.options.defaults));
      this.clients.set(key, client);
    }
    return client;
  }

  /**
   * A client of the agent whose card is at `cardUrl` (or at the well-known path of that origin), with the module's
   * `defaults` under `options`. The same URL gives the same client, unless `options` are given.
   */
  for(cardUrl: string, options?: A2aAgentDefaults): A2aAgentClient {
    const merged = withDefaults({ ...options, cardUrl }, this.options.defaults);
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

  private track(client: A2aAgentClient): A2aAgentClient {
    this.clients.set(`own:${this.clients.size}:${client.cardUrl}`, client);
    return client;
  }
}
