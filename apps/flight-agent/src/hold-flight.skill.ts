import { Inject } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  reject,
  working,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { DEFAULT_FLIGHT_STEP_DELAY_MS, FLIGHT_OPTIONS, type FlightOptions } from './flight.options.js';
import { describeOffer, holdCheapest, offersFor } from './flight.offers.js';
import { FlightSearchInput } from './flight-search.input.js';

export const HOLD_FLIGHT_SKILL_ID = 'hold-flight';

/**
 * Searches flights and holds the cheapest, streaming as it goes: a WORKING status per step, the offers as chunks of
 * one `offers` artifact (one offer per chunk, the last one marked `lastChunk`), then the hold as a `flight-hold`
 * artifact, its data part the structured hand-off.
 */
@AgentSkill({
  id: HOLD_FLIGHT_SKILL_ID,
  name: 'Search and hold a flight',
  description:
    'Searches flights between two cities for given dates, streams the offers as it finds them, and holds the cheapest for 24 hours.',
  tags: ['travel', 'flights', 'search', 'hold'],
  examples: ['{"from": "Paris", "to": "Lisbon", "departure": "2026-12-10", "return": "2026-12-13", "travellers": 1}'],
  inputModes: ['application/json'],
  outputModes: ['application/json', 'text/plain'],
  input: FlightSearchInput,
})
export class HoldFlightSkill extends A2aSkillHandler<FlightSearchInput> {
  private readonly stepDelayMs: number;

  constructor(@Inject(FLIGHT_OPTIONS) options: FlightOptions) {
    super();
    this.stepDelayMs = options.stepDelayMs ?? DEFAULT_FLIGHT_STEP_DELAY_MS;
  }

  async *handle({ input, signal }: SkillContext<FlightSearchInput>): AsyncGenerator<SkillEvent> {
    const { from, to, departure, travellers } = input;
    if (from.toLowerCase() === to.toLowerCase()) {
      yield reject(`${from} is both the origin and the destination; there is no flight to search.`);
      return;
    }
    if (input.return !== undefined && input.return < departure) {
      yield reject(`The return (${input.return}) is before the departure (${departure}).`);
      return;
    }

    yield working(
      `Searching flights ${from} → ${to}, ${departure}${input.return ? ` to ${input.return}` : ', one way'}…`,
    );
    const offers = offersFor({ from, to, departure, return: input.return, travellers });
    const offersId = randomUUID();
    for (const [index, offer] of offers.entries()) {
      if (!(await this.pause(signal))) return;
      const last = index === offers.length - 1;
      yield artifact({ data: offer }, { artifactId: offersId, name: 'offers', append: index > 0, lastChunk: last });
      yield working(`Offer ${index + 1} of ${offers.length}: ${describeOffer(offer)}`);
    }

    const hold = holdCheapest(offers, travellers);
    yield working(`Holding the cheapest, ${hold.offer.outbound.flightNumber}, for ${hold.heldForHours} hours…`);
    if (!(await this.pause(signal))) return;
    const summary = `Held ${describeOffer(hold.offer)} per traveller, ${hold.total.amount} ${hold.total.currency} for ${travellers}; reference ${hold.reference}.`;
    yield artifact([{ text: summary }, { data: hold, mediaType: 'application/json' }], {
      name: 'flight-hold',
      description: `Flight hold ${hold.reference}`,
    });
    yield complete(summary);
  }

  /** Waits a step, or less if the task is canceled meanwhile; false means canceled: emit nothing more. */
  private async pause(signal: AbortSignal): Promise<boolean> {
    if (this.stepDelayMs <= 0) return !signal.aborted;
    try {
      await sleep(this.stepDelayMs, undefined, { signal });
      return true;
    } catch {
      return false;
    }
  }
}
