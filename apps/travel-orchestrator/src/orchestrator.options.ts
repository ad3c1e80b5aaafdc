import type { Type } from '@nestjs/common';
import type { A2aClientNetworkOptions } from '../../../libs/a2a/src/client.js';
import type { A2aAuditSink } from '../../../libs/a2a/src/index.js';
import type { AgentChooser } from './agent-chooser.js';

/** How the travel orchestrator is deployed; `main.ts` fills it from the environment, tests pass their own. */
export interface TravelOrchestratorOptions {
  /** Public base URL written into the orchestrator's own card, e.g. `http://127.0.0.1:3100`. */
  baseUrl: string;
  /**
   * The agents it may call, by name → card URL (or origin). It does not know which does what: it reads their cards
   * and lets the chooser decide.
   */
  agents: Readonly<Record<string, string>>;
  /** Where its client may connect beyond public https (the workers' private addresses); see the SSRF note of docs/client.md. */
  network?: A2aClientNetworkOptions;
  /** The agent chooser: a class (made by Nest) or an instance. Default {@link RuleBasedAgentChooser}. */
  chooser?: Type<AgentChooser> | AgentChooser;
  /** Where trips start when the request names no origin. Default `'Paris'`. */
  homeCity?: string;
  /** Per call to a worker (a stream: until its first event), in ms. Default 10000. */
  timeoutMs?: number;
  /**
   * The audit trail, both ways: the trips it is asked to arrange (inbound) and what it delegates to the workers
   * (outbound, through its client, which uses the same sink). Default true: one JSON line per record on Nest's logger
   * (context `A2aAudit`); a sink of your own, or false.
   */
  audit?: A2aAuditSink | boolean;
}

export const ORCHESTRATOR_OPTIONS = Symbol('ORCHESTRATOR_OPTIONS');

export const DEFAULT_HOME_CITY = 'Paris';
