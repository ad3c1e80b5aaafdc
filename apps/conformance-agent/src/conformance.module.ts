import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { A2aModule } from '../../../libs/a2a/src/index.js';
import { grpcBinding } from '../../../libs/a2a/src/grpc.js';
import { A2aHealthIndicator } from '../../../libs/a2a/src/terminus.js';
import { HealthController } from '../../shared/src/health.controller.js';
import { CONFORMANCE_OPTIONS, type ConformanceOptions } from './conformance.options.js';
import { ConformanceSkill } from './conformance.skill.js';
import { conformanceSecurityOptions } from './conformance.security.js';
import { conformancePushOptions } from './conformance.push.js';

/**
 * The conformance agent: JSON-RPC at `POST /` and the HTTP+JSON routes at the root, because conformance tools assume
 * the bare origin; `GET /health` says whether its task store and event bus can serve. A dynamic module so tests can
 * boot it in-process with the URL they actually listen on.
 */
@Module({})
export class ConformanceModule {
  static forRoot(options: ConformanceOptions): DynamicModule {
    return {
      module: ConformanceModule,
      imports: [
        A2aModule.forRoot({
          card: {
            name: 'A2A conformance agent',
            description:
              'A deterministic agent for protocol conformance tests; see the conformance skill for its behaviours.',
          },
          baseUrl: options.baseUrl,
          eventBus: options.eventBus,
          taskStore: options.taskStore,
          leaseTtlMs: options.leaseTtlMs,
          jsonRpc: { path: '/' },
          rest: { path: '' },
          bindings: options.grpc ? [grpcBinding(options.grpc)] : [],
          security: conformanceSecurityOptions(options.security),
          push: conformancePushOptions(options.push),
          // CONFORMANCE-AGENT.md: one signature, over the card's RFC 8785 canonical form.
          cardSigning: options.cardSigningKey ? { keys: [options.cardSigningKey], coverage: 'strict' } : undefined,
          compat: options.compat,
          inspector: options.inspector,
          // Conformance kits and the bench drive this agent as one caller (its anonymous callers are one owner, or one
          // API key): caps per principal would only be the store's own bounds, lower. `maxTasks` still bounds it.
          limits: { maxTasksPerPrincipal: Infinity, maxStreamsPerPrincipal: Infinity },
        }),
        TerminusModule,
      ],
      controllers: [HealthController],
      providers: [{ provide: CONFORMANCE_OPTIONS, useValue: options }, ConformanceSkill, A2aHealthIndicator],
    };
  }
}
