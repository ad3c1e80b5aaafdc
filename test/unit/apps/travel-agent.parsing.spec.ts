import {
  askForFlightDetails,
  flightInputFromText,
  parseFlightRequest,
  requestSoFar,
} from '../../../apps/travel-agent/src/book-flight.skill.js';
import { TravelRouter } from '../../../apps/travel-agent/src/travel.router.js';
import { cityIn } from '../../../apps/travel-agent/src/weather.skill.js';
import type { Message } from '../../../libs/a2a/src/index.js';

const user = (text: string): Message => ({ messageId: text, role: 'ROLE_USER', parts: [{ text }] });
const agent = (text: string): Message => ({ messageId: text, role: 'ROLE_AGENT', parts: [{ text }] });

describe('travel agent parsing', () => {
  it.each([
    ['Book a flight from Paris to Tokyo on 2026-12-24', { from: 'Paris', to: 'Tokyo', date: '2026-12-24' }],
    [
      'from new york to san francisco, 2027-01-02 please',
      { from: 'New York', to: 'San Francisco', date: '2027-01-02' },
    ],
    ['I want to fly from Lisbon to Berlin please', { from: 'Lisbon', to: 'Berlin' }],
    ['from Rome to Oslo 2026-05-01', { from: 'Rome', to: 'Oslo', date: '2026-05-01' }],
    ['on 2026-12-24', { date: '2026-12-24' }],
    ['Book me a flight', {}],
    ['from Rome to Oslo on 2026-02-30', { from: 'Rome', to: 'Oslo', invalidDate: '2026-02-30' }],
  ])('reads "%s"', (text, expected) => {
    expect(parseFlightRequest(text)).toEqual(expected);
  });

  it('combines the user messages of the task, later ones winning, ignoring the agent', () => {
    const history = [
      user('Book a flight from Paris to Tokyo'),
      agent('On which date do you want to fly from Madrid to Cairo?'),
      user('2026-02-30'),
    ];
    expect(requestSoFar(history, 'actually from Paris to Kyoto on 2026-03-01')).toEqual({
      from: 'Paris',
      to: 'Kyoto',
      date: '2026-03-01',
    });
  });

  it('mentions only the latest message’s invalid date', () => {
    expect(requestSoFar([user('from A to B on 2026-02-30')], 'hm')).toEqual({ from: 'A', to: 'B' });
    expect(requestSoFar([user('from A to B')], '2026-02-30')).toEqual({
      from: 'A',
      to: 'B',
      invalidDate: '2026-02-30',
    });
  });

  it('gives the typed input what the text says, a date off the calendar included for the validator to name', () => {
    expect(flightInputFromText([user('from A to B')], 'on 2026-02-30')).toEqual({
      from: 'A',
      to: 'B',
      date: '2026-02-30',
    });
    expect(flightInputFromText([user('from A to B on 2026-02-28')], '2026-02-30')).toEqual({
      from: 'A',
      to: 'B',
      date: '2026-02-28',
    });
    expect(flightInputFromText([], 'Book me a flight')).toEqual({});
  });

  it('asks for the route first, then the date, then whatever else is wrong', () => {
    const violation = (field: string) => ({ field, description: `${field} is wrong` });
    expect(askForFlightDetails([violation('to'), violation('date')], { from: 'A' })).toMatch(
      /^Where are you flying from and to\?/,
    );
    expect(askForFlightDetails([violation('date')], { from: 'A', to: 'B', date: '2026-02-30' })).toBe(
      '2026-02-30 is not a date on the calendar. On which date do you want to fly from A to B? Please answer with a date like 2026-12-24.',
    );
    expect(askForFlightDetails([violation('date')], { from: 'A', to: 'B' })).toMatch(
      /^On which date do you want to fly from A to B\?/,
    );
    expect(askForFlightDetails([violation('passengers[0].name')], {})).toBe(
      'Please check the booking details: passengers[0].name is wrong.',
    );
  });

  it.each([
    ["What's the weather in Tokyo?", 'Tokyo'],
    ['forecast for New York tomorrow', 'New York'],
    ['weather at Lisbon', 'Lisbon'],
    ['what will the weather be?', undefined],
  ])('finds the city in "%s"', (text, city) => {
    expect(cityIn(text)).toBe(city);
  });

  it.each([
    ['What is the weather in Tokyo?', 'weather'],
    ['Any rain forecast for Paris?', 'weather'],
    ['Book a flight from Paris to Tokyo', 'book-flight'],
    ['hello', 'book-flight'],
  ])('routes "%s" to %s', (text, skill) => {
    expect(new TravelRouter().route(user(text))).toBe(skill);
  });
});
