import 'reflect-metadata';
import type { Task } from '../../../libs/a2a/src/index.js';
import {
  collectSkillEvents,
  createSkillContext,
  expectStates,
  lastMessageTextOf,
} from '../../../libs/a2a/src/testing.js';
import { freeDaysIn, mondayOf, nextWeekStart } from '../../../apps/calendar-agent/src/calendar.week.js';
import { FreeDaysInput } from '../../../apps/calendar-agent/src/free-days.input.js';
import { FreeDaysSkill } from '../../../apps/calendar-agent/src/free-days.skill.js';
import { FlightSearchInput } from '../../../apps/flight-agent/src/flight-search.input.js';
import { HoldFlightSkill } from '../../../apps/flight-agent/src/hold-flight.skill.js';
import { FindHotelSkill } from '../../../apps/hotel-agent/src/find-hotel.skill.js';
import { HotelSearchInput } from '../../../apps/hotel-agent/src/hotel-search.input.js';

/** The three workers' skills alone, with the testing kit: no Nest, no sockets, no pauses. */

describe('calendar: free days', () => {
  it('counts next week from Monday to Sunday after the week of today', () => {
    expect(nextWeekStart(new Date('2026-12-01T19:00:00Z'))).toBe('2026-12-07'); // a Tuesday
    expect(nextWeekStart(new Date('2026-12-07T00:00:00Z'))).toBe('2026-12-14'); // a Monday: the week after
    expect(nextWeekStart(new Date('2026-12-13T23:59:00Z'))).toBe('2026-12-14'); // a Sunday
    expect(mondayOf('2026-12-31')).toBe('2026-12-28');
  });

  it('is busy two days of Monday to Thursday, the same every time, so every trip has at least two nights', () => {
    for (const user of ['ada', 'traveller', 'grace', 'linus']) {
      const week = freeDaysIn(user, '2026-12-07');
      expect(freeDaysIn(user, '2026-12-07')).toEqual(week);
      expect(week.busyDays).toHaveLength(2);
      expect(week.busyDays.every((day) => day >= '2026-12-07' && day <= '2026-12-10')).toBe(true);
      expect(week.freeDays).toEqual(expect.arrayContaining(['2026-12-11', '2026-12-12', '2026-12-13']));
      expect(week.trip.nights).toBeGreaterThanOrEqual(2);
      expect(week.trip.return).toBe('2026-12-13');
    }
  });

  it('answers with the days as data and as a sentence', async () => {
    const skill = new FreeDaysSkill({
      baseUrl: 'http://calendar.test',
      grpc: { url: '127.0.0.1:0' },
      today: () => new Date('2026-12-01T12:00:00Z'),
    });
    const events = await collectSkillEvents(
      skill.handle(createSkillContext({ input: Object.assign(new FreeDaysInput(), { user: 'ada' }) })),
    );
    expectStates(events, ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    const [artifact] = events.filter((event) => event.kind === 'artifact');
    expect(artifact).toMatchObject({
      artifact: {
        name: 'free-days',
        parts: [
          { text: lastMessageTextOf(events) },
          { data: freeDaysIn('ada', '2026-12-07'), mediaType: 'application/json' },
        ],
      },
    });
  });
});

describe('flights: search and hold, streamed', () => {
  const skill = new HoldFlightSkill({ baseUrl: 'http://flights.test', stepDelayMs: 0 });
  const search = (fields: Partial<FlightSearchInput>) =>
    Object.assign(new FlightSearchInput(), {
      from: 'Paris',
      to: 'Lisbon',
      departure: '2026-12-11',
      return: '2026-12-13',
      ...fields,
    });

  it('streams every offer as a chunk of one artifact, then holds the cheapest', async () => {
    const events = await collectSkillEvents(skill.handle(createSkillContext({ input: search({ travellers: 2 }) })));
    const chunks = events.filter((event) => event.kind === 'artifact' && event.artifact.name === 'offers');
    expect(
      chunks.map((chunk) => chunk.kind === 'artifact' && [chunk.append ?? false, chunk.lastChunk ?? false]),
    ).toEqual([
      [false, false],
      [true, false],
      [true, true],
    ]);
    expect(new Set(chunks.map((chunk) => chunk.kind === 'artifact' && chunk.artifact.artifactId)).size).toBe(1);
    const offers = chunks.map(
      (chunk) =>
        (chunk.kind === 'artifact' ? (chunk.artifact.parts[0].data as { price: { amount: number } }) : undefined)!,
    );
    const hold = events.find((event) => event.kind === 'artifact' && event.artifact.name === 'flight-hold');
    const held = (hold?.kind === 'artifact' ? hold.artifact.parts[1].data : undefined) as {
      offer: { price: { amount: number } };
      total: { amount: number };
      travellers: number;
    };
    expect(held.offer.price.amount).toBe(Math.min(...offers.map((offer) => offer.price.amount)));
    expect(held.total.amount).toBe(2 * held.offer.price.amount);
    expectStates(events, [
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING',
      'TASK_STATE_COMPLETED',
    ]);
  });

  it('refuses a return before the departure', async () => {
    expectStates(
      await collectSkillEvents(skill.handle(createSkillContext({ input: search({ return: '2026-12-10' }) }))),
      ['TASK_STATE_REJECTED'],
    );
  });
});

describe('hotels: which of these two?', () => {
  const skill = new FindHotelSkill();
  const stay = (fields: Partial<HotelSearchInput> = {}) =>
    Object.assign(new HotelSearchInput(), { city: 'Lisbon', checkIn: '2026-12-11', checkOut: '2026-12-13', ...fields });

  it('asks which hotel when two match, the options as a data part', async () => {
    const events = await collectSkillEvents(skill.handle(createSkillContext({ input: stay() })));
    expectStates(events, ['TASK_STATE_INPUT_REQUIRED']);
    const [question] = events;
    expect(question).toMatchObject({
      message: [
        { text: expect.stringMatching(/^Which of these two hotels\? Casa do Rio .*; Hotel Miradouro /) },
        {
          data: {
            question: 'Which of these two hotels?',
            answerField: 'hotelId',
            options: [
              { id: 'lis-casa-do-rio', total: { amount: 290, currency: 'EUR' } },
              { id: 'lis-miradouro', total: { amount: 236, currency: 'EUR' } },
            ],
          },
        },
      ],
    });
  });

  it('books the one the follow-up names, and asks again for an id that is not an option', async () => {
    const task: Task = { id: 'hotel-1', contextId: 'c-1', status: { state: 'TASK_STATE_INPUT_REQUIRED' } };
    const booked = await collectSkillEvents(
      skill.handle(createSkillContext({ task, input: stay({ hotelId: 'lis-miradouro' }) })),
    );
    expectStates(booked, ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    expect(lastMessageTextOf(booked)).toMatch(
      /^Booked Hotel Miradouro \(Chiado, Lisbon\) from 2026-12-11 to 2026-12-13 for 1: 236 EUR, reservation HR-[0-9A-F]{6}\.$/,
    );
    const again = await collectSkillEvents(
      skill.handle(createSkillContext({ task, input: stay({ hotelId: 'par-cour-carree' }) })),
    );
    expectStates(again, ['TASK_STATE_INPUT_REQUIRED']);
    expect(lastMessageTextOf(again)).toMatch(/^par-cour-carree is not one of them\. Which of these two hotels\?/);
  });

  it('books at once when one hotel matches, and refuses a stay nobody can host', async () => {
    expectStates(await collectSkillEvents(skill.handle(createSkillContext({ input: stay({ guests: 3 }) }))), [
      'TASK_STATE_WORKING',
      'TASK_STATE_COMPLETED',
    ]);
    expectStates(await collectSkillEvents(skill.handle(createSkillContext({ input: stay({ city: 'Oslo' }) }))), [
      'TASK_STATE_WORKING',
      'TASK_STATE_COMPLETED',
    ]);
    expectStates(await collectSkillEvents(skill.handle(createSkillContext({ input: stay({ guests: 5 }) }))), [
      'TASK_STATE_REJECTED',
    ]);
    expectStates(
      await collectSkillEvents(skill.handle(createSkillContext({ input: stay({ checkOut: '2026-12-11' }) }))),
      ['TASK_STATE_REJECTED'],
    );
  });
});
