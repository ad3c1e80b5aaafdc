import { Inject, Injectable, Logger } from '@nestjs/common';
import { A2aClient } from '../../../libs/a2a/src/client.js';
import {
  AGENT_CHOOSER,
  type AgentCandidate,
  type AgentChoice,
  type AgentChooser,
  type AgentNeed,
} from './agent-chooser.js';

/** The agents the orchestrator knows, read from their cards, and the chooser's pick among them for each need. */
@Injectable()
export class AgentDirectory {
  private readonly logger = new Logger('AgentDirectory');

  constructor(
    private readonly a2a: A2aClient,
    @Inject(AGENT_CHOOSER) private readonly chooser: AgentChooser,
  ) {}

  /** Every registered agent whose card can be read now (cached by the client for its max-age); the others are logged and left out. */
  async candidates(signal?: AbortSignal): Promise<AgentCandidate[]> {
    const cards = await Promise.all(
      this.a2a.agentNames.map(async (name) => {
        try {
          return { name, card: await this.a2a.agent(name).card({ signal }) };
        } catch (error) {
          this.logger.warn(`No card from agent "${name}": ${error instanceof Error ? error.message : String(error)}`);
          return undefined;
        }
      }),
    );
    return cards.filter((candidate): candidate is AgentCandidate => candidate !== undefined);
  }

  /** The chooser's pick for each need (by need id), undefined where no agent will do. */
  async choose(needs: readonly AgentNeed[], signal?: AbortSignal): Promise<Map<string, AgentChoice | undefined>> {
    const candidates = await this.candidates(signal);
    const choices = new Map<string, AgentChoice | undefined>();
    for (const need of needs) choices.set(need.id, await this.chooser.choose(need, candidates, signal));
    return choices;
  }
}
