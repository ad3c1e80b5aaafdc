import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { A2aModule } from '../../../libs/a2a/src/index.js';
import { grpcBinding } from '../../../libs/a2a/src/grpc.js';
import { A2aHealthIndicator } from '../../../libs/a2a/src/terminus.js';
import { HealthController } from '../../shared/src/health.controller.js';
import { BookFlightSkill } from './book-flight.skill.js';
import { TRAVEL_OPTIONS, type TravelOptions } from './travel.options.js';
import { TravelRouter } from './travel.router.js';
import { travelSecurityOptions } from './travel.security.js';
import { WeatherSkill } from './weather.skill.js';

/**
 * A travel assistant with two skills: flight booking (multi-turn, streamed progress, a structured itinerary) and
 * weather forecasts. JSON-RPC at `/a2a/jsonrpc`, HTTP+JSON at `/a2a/rest`, health at `/health`. A dynamic module so
 * tests can boot it with their own URL and without the demo's pauses.
 */
@Module({})
export class TravelModule {
  static forRoot(options: TravelOptions): DynamicModule {
    return {
      module: TravelModule,
      imports: [
        A2aModule.forRoot({
          card: {
            name: 'Travel agent',
            description: 'Books flights and gives weather forecasts for your destination.',
            defaultOutputModes: ['text/plain', 'application/json'],
          },
          baseUrl: options.baseUrl,
          router: TravelRouter,
          bindings: options.grpc ? [grpcBinding(options.grpc)] : [],
          security: travelSecurityOptions(options.security),
          inspector: options.inspector,
        }),
        TerminusModule,
      ],
      controllers: [HealthController],
      providers: [{ provide: TRAVEL_OPTIONS, useValue: options }, BookFlightSkill, WeatherSkill, A2aHealthIndicator],
    };
  }
}
