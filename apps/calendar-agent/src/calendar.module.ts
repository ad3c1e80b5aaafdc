import { Module, type DynamicModule } from '@nestjs/common';
import { A2aModule } from '../../../libs/a2a/src/index.js';
import { grpcBinding } from '../../../libs/a2a/src/grpc.js';
import { CALENDAR_OPTIONS, type CalendarOptions } from './calendar.options.js';
import { FreeDaysSkill } from './free-days.skill.js';

/**
 * The calendar agent of the travel demo: one skill, served over gRPC only. Its HTTP server carries nothing but the
 * card, whose one interface is the gRPC one, so every client (the orchestrator's included) talks to it over gRPC.
 */
@Module({})
export class CalendarModule {
  static forRoot(options: CalendarOptions): DynamicModule {
    return {
      module: CalendarModule,
      imports: [
        A2aModule.forRoot({
          card: {
            name: 'Calendar agent',
            description: "Knows people's calendars: who is free when.",
            defaultInputModes: ['application/json'],
            defaultOutputModes: ['application/json', 'text/plain'],
          },
          baseUrl: options.baseUrl,
          // Open on purpose: a local demo (its processes listen on loopback unless HOST says otherwise).
          security: { allowAnonymous: true },
          jsonRpc: false,
          rest: false,
          bindings: [grpcBinding(options.grpc)],
        }),
      ],
      providers: [{ provide: CALENDAR_OPTIONS, useValue: options }, FreeDaysSkill],
    };
  }
}
