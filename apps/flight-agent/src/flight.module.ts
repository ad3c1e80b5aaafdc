import { Module, type DynamicModule } from '@nestjs/common';
import { A2aModule } from '../../../libs/a2a/src/index.js';
import { FLIGHT_OPTIONS, type FlightOptions } from './flight.options.js';
import { HoldFlightSkill } from './hold-flight.skill.js';

/** The flight agent of the travel demo: one streaming skill over JSON-RPC and HTTP+JSON. */
@Module({})
export class FlightModule {
  static forRoot(options: FlightOptions): DynamicModule {
    return {
      module: FlightModule,
      imports: [
        A2aModule.forRoot({
          card: {
            name: 'Flight agent',
            description: 'Finds flights and holds seats, streaming what it finds.',
            defaultInputModes: ['application/json'],
            defaultOutputModes: ['application/json', 'text/plain'],
          },
          baseUrl: options.baseUrl,
          // Open on purpose: a local demo (its processes listen on loopback unless HOST says otherwise).
          security: { allowAnonymous: true },
        }),
      ],
      providers: [{ provide: FLIGHT_OPTIONS, useValue: options }, HoldFlightSkill],
    };
  }
}
