import type { AgentCard } from '../../../libs/a2a/src/index.js';

/** A skill as a card lists it (the core entry's `AgentSkill` is the decorator). */
export type CardSkill = AgentCard['skills'][number];

/** Something the orchestrator needs another agent for, described the way cards describe skills. */
export interface AgentNeed {
  /** Short id, used in the itinerary's task list: `free-days`, `flight`, `hotel`. */
  readonly id: string;
  /** What needs doing, in words: for logs, for people, and for a model that chooses. */
  readonly description: string;
  /** Skill tags that say a skill does it; a skill must carry at least one, and more is better. */
  readonly tags: readonly string[];
  /** The media type the orchestrator sends (its hand-offs are data parts): the skill must accept it. */
  readonly sends: string;
  /** The media type the orchestrator reads back: the skill must produce it. */
  readonly reads: string;
  /** The orchestrator follows the task as a stream: the agent's card must declare `capabilities.streaming`. */
  readonly streaming?: boolean;
}

/** An agent the orchestrator knows (registered by name in `A2aClientModule`), with the card it publishes. */
export interface AgentCandidate {
  readonly name: string;
  readonly card: AgentCard;
}

/** The agent and skill chosen for a need, and why (shown to the caller as progress). */
export interface AgentChoice {
  readonly agent: string;
  readonly skill: CardSkill;
  readonly reason: string;
}

/**
 * Chooses which agent, and which of its skills, does something, from the agents' cards. The default is
 * {@link RuleBasedAgentChooser} (tags, media types, streaming); {@link PromptedAgentChooser} shows how a model-backed
 * one plugs in. Replace it with option `chooser` of `TravelOrchestratorModule.forRoot`, or provide {@link AGENT_CHOOSER}.
 */
export interface AgentChooser {
  /** The choice for `need` among `candidates`, or undefined when none will do. */
  choose(
    need: AgentNeed,
    candidates: readonly AgentCandidate[],
    signal?: AbortSignal,
  ): AgentChoice | undefined | Promise<AgentChoice | undefined>;
}

/** DI token of the {@link AgentChooser} the orchestrator uses. */
export const AGENT_CHOOSER = Symbol('AGENT_CHOOSER');
