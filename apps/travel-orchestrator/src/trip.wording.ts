import type { JsonObject } from '../../../libs/a2a/src/index.js';
import {
  moneyOf,
  objectOf as object,
  stringOf as string,
  type HotelOffer,
  type Itinerary,
  type Money,
  type PendingHotelQuestion,
} from './trip.hand-offs.js';

/** The sentences the orchestrator says to its caller. */

/** "Thu 10 Dec". */
export function dayName(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
  });
}

export function nightsText(nights: number): string {
  return `${nights} night${nights === 1 ? '' : 's'}`;
}

export function money({ amount, currency }: Money): string {
  return `${amount} ${currency}`;
}

/** The question passed up to the caller: who asked, what, and the options numbered. */
export function hotelQuestionText({ askedBy, question, options }: PendingHotelQuestion): string {
  const list = options.map((option, index) => `${index + 1}. ${describeOffer(option)}`).join('; ');
  return `${askedBy.agent} asks: ${question} ${list}. Answer with a name or a number.`;
}

/** One line for the whole trip. */
export function itinerarySummary(itinerary: Itinerary): string {
  const { traveller, origin, destination, departure, nights, total } = itinerary;
  const back = itinerary.return;
  const flight = flightLine(itinerary.flight);
  const hotel = hotelLine(itinerary.hotel);
  return (
    `${traveller}'s trip from ${origin} to ${destination}, ${dayName(departure)} to ${dayName(back)} (${nightsText(nights)}): ` +
    `${flight}; ${hotel}${total ? `; ${money(total)} in all` : ''}.`
  );
}

function describeOffer(option: HotelOffer): string {
  const total = moneyOf(option.total);
  const details = [
    string(option.neighbourhood),
    typeof option.stars === 'number' ? `${option.stars}★` : undefined,
    total && `${money(total)} in all`,
  ];
  const known = details.filter((detail): detail is string => detail !== undefined);
  return known.length > 0 ? `${option.name} (${known.join(', ')})` : option.name;
}

function flightLine(hold: JsonObject): string {
  const offer = object(hold.offer);
  const outbound = object(offer?.outbound);
  const inbound = object(offer?.inbound);
  const leg = (flight: JsonObject | undefined) =>
    flight ? [string(flight.flightNumber), string(flight.departs)].filter(Boolean).join(' at ') : undefined;
  const legs = [leg(outbound), inbound && `back ${leg(inbound)}`].filter(Boolean).join(', ');
  const total = moneyOf(hold.total);
  return `flight ${[string(offer?.airline), legs].filter(Boolean).join(' ')} held as ${string(hold.reference)}${total ? ` (${money(total)})` : ''}`;
}

function hotelLine(booking: JsonObject): string {
  const hotel = object(booking.hotel);
  const total = moneyOf(booking.total);
  return `${string(hotel?.name)} booked as ${string(booking.reservation)}${total ? ` (${money(total)})` : ''}`;
}
