import { Inject } from '@nestjs/common';
import { createHash } from 'node:crypto';
import {
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  reject,
  working,
  type FieldViolation,
  type Message,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { BookFlightInput } from './book-flight.input.js';
import { pause } from './travel.pause.js';
import { DEFAULT_STEP_DELAY_MS, TRAVEL_OPTIONS, type TravelOptions } from './travel.options.js';

export const BOOK_FLIGHT_SKILL_ID = 'book-flight';

/** What the traveller has told us so far; any of it may still be missing. */
export interface FlightRequest {
  from?: string;
  to?: string;
  /** `YYYY-MM-DD`, a real calendar date. */
  date?: string;
  /** A `YYYY-MM-DD` the traveller gave that is no calendar date (2026-02-30), so we can say what was wrong. */
  invalidDate?: string;
}

// A type alias, not an interface, so it counts as a JSON value for the artifact's data part.
export type Itinerary = {
  from: string;
  to: string;
  date: string;
  airline: string;
  flightNumber: string;
  departureTime: string;
  price: { amount: number; currency: string };
  /** The travellers' names, when the request named them; the price is for all of them. */
  passengers?: string[];
};

// "from <city> to <city>", the destination ending at a word that cannot be part of it ("on", "please"…), a date,
// punctuation or the end of the text.
const ROUTE =
  /\bfrom\s+(.+?)\s+to\s+(.+?)(?=\s+(?:on|for|at|in|next|this|today|tomorrow|please)\b|\s+\d{4}-\d{2}-\d{2}|[,.!?;]|$)/i;
const DATE = /\b(\d{4}-\d{2}-\d{2})\b/;

// Fictional carriers: the fares are made up, and deterministic so the demo and its tests always agree.
const AIRLINES = [
  { code: 'NA', name: 'Nest Air' },
  { code: 'AG', name: 'Agent Airways' },
  { code: 'PP', name: 'Protocol Pacific' },
  { code: 'SJ', name: 'Stream Jet' },
];

/**
 * Books a flight from a typed {@link BookFlightInput}: a data part, or a request like "Book a flight from Paris to
 * Tokyo on 2026-12-24" read by `parseText` together with the earlier messages of the task, so "2026-12-24" alone
 * completes a request that named the route before. What is missing or invalid (route, then date) is asked for with
 * INPUT_REQUIRED by the module (`onInvalidInput: 'input-required'`), before the skill runs.
 */
@AgentSkill({
  id: BOOK_FLIGHT_SKILL_ID,
  name: 'Book a flight',
  description:
    'Books a one-way flight between two cities on a given date, asking for anything missing, and returns the itinerary.',
  tags: ['travel', 'flights', 'booking'],
  examples: ['Book a flight from Paris to Tokyo on 2026-12-24', 'I need to fly from Lisbon to Berlin'],
  inputModes: ['text/plain', 'application/json'],
  outputModes: ['text/plain', 'application/json'],
  default: true,
  input: BookFlightInput,
  onInvalidInput: 'input-required',
  parseText: (text, { history }) => flightInputFromText(history, text),
  invalidInputMessage: askForFlightDetails,
})
export class BookFlightSkill extends A2aSkillHandler<BookFlightInput> {
  private readonly stepDelayMs: number;

  constructor(@Inject(TRAVEL_OPTIONS) options: TravelOptions) {
    super();
    this.stepDelayMs = options.stepDelayMs ?? DEFAULT_STEP_DELAY_MS;
  }

  async *handle(context: SkillContext<BookFlightInput>): AsyncGenerator<SkillEvent> {
    const { from, to, date, passengers } = context.input;
    if (from.toLowerCase() === to.toLowerCase()) {
      yield reject(`${from} is both the origin and the destination; there is no flight to book.`);
      return;
    }

    yield working(`Searching flights from ${from} to ${to} on ${date}…`);
    if (!(await pause(this.stepDelayMs, context.signal))) return;
    yield working('Comparing fares…');
    if (!(await pause(this.stepDelayMs, context.signal))) return;
    const itinerary = quote(
      from,
      to,
      date,
      passengers?.map((passenger) => passenger.name),
    );
    yield working(`Booking ${itinerary.airline} ${itinerary.flightNumber}…`);
    if (!(await pause(this.stepDelayMs, context.signal))) return;

    yield artifact(
      { data: itinerary },
      { name: 'itinerary', description: `Flight ${itinerary.flightNumber} from ${from} to ${to} on ${date}` },
    );
    yield complete(
      `Booked ${itinerary.airline} ${itinerary.flightNumber} from ${from} to ${to} on ${date}, departing ${itinerary.departureTime}, ` +
        `for ${itinerary.price.amount} ${itinerary.price.currency}.`,
    );
  }
}

/** The request told over the task's user messages so far, later messages overriding earlier ones. */
export function requestSoFar(history: readonly Message[], latest: string): FlightRequest {
  const texts = [...history.filter((m) => m.role === 'ROLE_USER').map(textOf), latest];
  const request: FlightRequest = {};
  texts.forEach((text, index) => {
    const { invalidDate, ...parsed } = parseFlightRequest(text);
    Object.assign(request, parsed);
    // Only the latest message's bad date is worth mentioning: an earlier one was already answered.
    if (index === texts.length - 1 && invalidDate) request.invalidDate = invalidDate;
  });
  return request;
}

/** The plain input `parseText` gives the module: the request so far, a date off the calendar kept for the validator to name. */
export function flightInputFromText(history: readonly Message[], latest: string): Omit<FlightRequest, 'invalidDate'> {
  const { invalidDate, ...request } = requestSoFar(history, latest);
  return invalidDate && !request.date ? { ...request, date: invalidDate } : request;
}

/** The INPUT_REQUIRED question for an invalid input: the route first, then the date. */
export function askForFlightDetails(violations: readonly FieldViolation[], given: unknown): string {
  const fields = new Set(violations.map((violation) => violation.field.split(/[.[]/)[0]));
  const { from, to, date } = (typeof given === 'object' && given !== null ? given : {}) as Record<string, unknown>;
  if (fields.has('from') || fields.has('to'))
    return 'Where are you flying from and to? For example: "from Paris to Tokyo on 2026-12-24".';
  if (fields.has('date')) {
    const problem =
      typeof date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(date) ? `${date} is not a date on the calendar. ` : '';
    return `${problem}On which date do you want to fly from ${String(from)} to ${String(to)}? Please answer with a date like 2026-12-24.`;
  }
  return `Please check the booking details: ${violations.map((violation) => violation.description).join('; ')}.`;
}

export function parseFlightRequest(text: string): FlightRequest {
  const request: FlightRequest = {};
  const route = ROUTE.exec(text);
  if (route) {
    request.from = cityName(route[1]);
    request.to = cityName(route[2]);
  }
  const date = DATE.exec(text)?.[1];
  if (date && isCalendarDate(date)) request.date = date;
  else if (date) request.invalidDate = date;
  return request;
}

/** A made-up but stable fare: the same route and date always give the same flight and price (per traveller). */
export function quote(from: string, to: string, date: string, passengers?: readonly string[]): Itinerary {
  const digest = createHash('sha256').update(`${from}|${to}|${date}`.toLowerCase()).digest();
  const airline = AIRLINES[digest[0] % AIRLINES.length];
  const hour = 6 + (digest[3] % 16);
  const minute = [0, 15, 30, 45][digest[4] % 4];
  const fare = 180 + (digest.readUInt16BE(5) % 1200);
  const itinerary: Itinerary = {
    from,
    to,
    date,
    airline: airline.name,
    flightNumber: `${airline.code}${100 + (digest.readUInt16BE(1) % 900)}`,
    departureTime: `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`,
    price: { amount: fare * (passengers?.length || 1), currency: 'EUR' },
  };
  if (passengers?.length) itinerary.passengers = [...passengers];
  return itinerary;
}

function cityName(raw: string): string {
  return raw
    .trim()
    .split(/\s+/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase())
    .join(' ');
}

function isCalendarDate(date: string): boolean {
  const parsed = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(date);
}

function textOf(message: Message): string {
  return message.parts.flatMap((p) => (p.text !== undefined ? [p.text] : [])).join('\n');
}
