import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { A2aClientModule } from '../../../libs/a2a/src/client.js';
import { A2aModule } from '../../../libs/a2a/src/index.js';
import { AGENT_CHOOSER } from './agent-chooser.js';
import { AgentDirectory } from './agent.directory.js';
import { ORCHESTRATOR_OPTIONS, type TravelOrchestratorOptions } from './orchestrator.options.js';
import { PlanTripSkill } from './plan-trip.skill.js';
import { RuleBasedAgentChooser } from './rule-based-agent.chooser.js';

export const DEFAULT_WORKER_TIMEOUT_MS = 10_000;

/**
 * The travel orchestrator: an A2A agent (skill `plan-trip`, JSON-RPC and HTTP+JSON) that is also an A2A client of
 * the agents of option `agents`, which it chooses among by their cards. Its calls to them are made while the skill
 * runs, so with an OpenTelemetry SDK registered they are CLIENT spans under the skill's span and the workers continue
 * the caller's trace; its audit trail (option `audit`, on by default) records the trips it is asked for and, through
 * the client, which picks up A2A_AUDIT_SINK, what it delegated to each worker and what came back.
 */
@Module({})
export class TravelOrchestratorModule {
  static forRoot(options: TravelOrchestratorOptions): DynamicModule {
    const chooser = options.chooser ?? RuleBasedAgentChooser;
    const chooserProvider: Provider =
      typeof chooser === 'function'
        ? { provide: AGENT_CHOOSER, useClass: chooser }
        : { provide: AGENT_CHOOSER, useValue: chooser };
    return {
      module: TravelOrchestratorModule,
      imports: [
        A2aModule.forRoot({
          card: {
            name: 'Travel orchestrator',
            description:
              'Arranges trips by asking a calendar, a flight and a hotel agent, and asks you when a choice is yours.',
            defaultInputModes: ['text/plain', 'application/json'],
            defaultOutputModes: ['text/plain', 'application/json'],
          },
          baseUrl: options.baseUrl,
          // Open on purpose: a local demo (its processes listen on loopback unless HOST says otherwise).
          security: { allowAnonymous: true },
          audit: options.audit ?? true,
        }),
        // Its clients record their delegations in A2aModule's audit sink (A2A_AUDIT_SINK), found without an import.
        A2aClientModule.register({
          agents: Object.fromEntries(Object.entries(options.agents).map(([name, cardUrl]) => [name, { cardUrl }])),
          defaults: {
            timeoutMs: options.timeoutMs ?? DEFAULT_WORKER_TIMEOUT_MS,
            ...(options.network ? { network: options.network } : {}),
          },
        }),
      ],
      providers: [{ provide: ORCHESTRATOR_OPTIONS, useValue: options }, chooserProvider, AgentDirectory, PlanTripSkill],
    };
  }
}
