import { Module, type DynamicModule } from '@nestjs/common';
import { A2aModule } from '../../../libs/a2a/src/index.js';
import { FindHotelSkill } from './find-hotel.skill.js';
import type { HotelOptions } from './hotel.options.js';

/** The hotel agent of the travel demo: one multi-turn skill (it asks which hotel) over JSON-RPC and HTTP+JSON. */
@Module({})
export class HotelModule {
  static forRoot(options: HotelOptions): DynamicModule {
    return {
      module: HotelModule,
      imports: [
        A2aModule.forRoot({
          card: {
            name: 'Hotel agent',
            description: 'Finds and books hotels, asking which one when there is a choice.',
            defaultInputModes: ['application/json'],
            defaultOutputModes: ['application/json', 'text/plain'],
          },
          baseUrl: options.baseUrl,
          // Open on purpose: a local demo (its processes listen on loopback unless HOST says otherwise).
          security: { allowAnonymous: true },
        }),
      ],
      providers: [FindHotelSkill],
    };
  }
}
