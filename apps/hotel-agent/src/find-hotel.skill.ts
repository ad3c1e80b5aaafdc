import {
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  reject,
  requireInput,
  working,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { bookingOf, hotelsIn, nightsBetween, optionOf, type HotelOption, type HotelQuestion } from './hotel.catalog.js';
import { HotelSearchInput } from './hotel-search.input.js';

export const FIND_HOTEL_SKILL_ID = 'find-hotel';

/**
 * Finds a hotel for a stay and books it. When more than one hotel matches and the input names none of them, the task
 * goes INPUT_REQUIRED with the question and the options as a data part ({@link HotelQuestion}); the follow-up on that
 * task, the same input with `hotelId` set, books the chosen one.
 */
@AgentSkill({
  id: FIND_HOTEL_SKILL_ID,
  name: 'Find and book a hotel',
  description: 'Finds hotels in a city for a stay; asks which one when several match, then books it.',
  tags: ['travel', 'hotels', 'lodging', 'booking'],
  examples: ['{"city": "Lisbon", "checkIn": "2026-12-10", "checkOut": "2026-12-13", "guests": 1}'],
  inputModes: ['application/json'],
  outputModes: ['application/json', 'text/plain'],
  input: HotelSearchInput,
})
export class FindHotelSkill extends A2aSkillHandler<HotelSearchInput> {
  async *handle({ input }: SkillContext<HotelSearchInput>): AsyncGenerator<SkillEvent> {
    const { city, checkIn, checkOut, guests, hotelId } = input;
    const nights = nightsBetween(checkIn, checkOut);
    if (nights < 1) {
      yield reject(`The check-out (${checkOut}) must be after the check-in (${checkIn}).`);
      return;
    }
    const matches = hotelsIn(city).filter((hotel) => hotel.maxGuests >= guests);
    if (matches.length === 0) {
      yield reject(`No hotel in ${city} has a room for ${guests} guests.`);
      return;
    }

    const chosen =
      hotelId !== undefined
        ? matches.find((hotel) => hotel.id === hotelId)
        : matches.length === 1
          ? matches[0]
          : undefined;
    if (!chosen) {
      const options = matches.map((hotel) => optionOf(hotel, nights));
      const unknown = hotelId !== undefined ? `${hotelId} is not one of them. ` : '';
      const question: HotelQuestion = {
        question: `${unknown}Which of these ${numberWord(options.length)} hotels?`,
        answerField: 'hotelId',
        options,
      };
      yield requireInput([
        { text: `${question.question} ${options.map(describeOption).join('; ')}.` },
        { data: question, mediaType: 'application/json' },
      ]);
      return;
    }

    yield working(`Booking ${chosen.name}, ${nights} nights from ${checkIn}…`);
    const booking = bookingOf(chosen, checkIn, checkOut, nights, guests);
    const summary =
      `Booked ${chosen.name} (${chosen.neighbourhood}, ${city}) from ${checkIn} to ${checkOut} for ${guests}: ` +
      `${booking.total.amount} ${booking.total.currency}, reservation ${booking.reservation}.`;
    yield artifact([{ text: summary }, { data: booking, mediaType: 'application/json' }], {
      name: 'hotel-booking',
      description: `Reservation ${booking.reservation}`,
    });
    yield complete(summary);
  }
}

function describeOption(option: HotelOption): string {
  return `${option.name} (${option.neighbourhood}, ${option.stars}★, ${option.pricePerNight.amount} ${option.pricePerNight.currency} a night, id ${option.id})`;
}

function numberWord(count: number): string {
  return ['zero', 'one', 'two', 'three', 'four', 'five'][count] ?? String(count);
}
