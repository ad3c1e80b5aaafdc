import type { Message, Task } from '../../../libs/a2a/src/index.js';
import { tripInputFromText } from '../../../apps/travel-orchestrator/src/plan-trip.input.js';
import {
  chosenOption,
  pendingQuestionOf,
  readFlightHold,
  readFreeDays,
  readHotelQuestion,
  resultDataOf,
  type HotelOffer,
  type PendingHotelQuestion,
} from '../../../apps/travel-orchestrator/src/trip.hand-offs.js';

/** The orchestrator's reading of its caller's text and of the workers' data parts. */

const options: HotelOffer[] = [
  { id: 'lis-casa-do-rio', name: 'Casa do Rio' },
  { id: 'lis-miradouro', name: 'Hotel Miradouro' },
];

const user = (text: string): Message => ({ messageId: text, role: 'ROLE_USER', parts: [{ text }] });

describe('the caller: what a text asks for', () => {
  it('reads the destination and the origin of a request', () => {
    expect(tripInputFromText("arrange next week's trip to Lisbon", { history: [] })).toEqual({ destination: 'Lisbon' });
    expect(tripInputFromText('I want to go to new york from Paris, please', { history: [] })).toEqual({
      destination: 'New York',
      origin: 'Paris',
    });
    expect(tripInputFromText('a trip from Berlin to Lisbon next week', { history: [] })).toEqual({
      destination: 'Lisbon',
      origin: 'Berlin',
    });
    expect(tripInputFromText('arrange a trip', { history: [] })).toEqual({});
  });

  it('takes a bare place as the answer to "where to?", with the earlier messages', () => {
    const task: Task = { id: 't', contextId: 'c', status: { state: 'TASK_STATE_INPUT_REQUIRED' } };
    expect(tripInputFromText('lisbon', { history: [user('a trip from Berlin next week')], task })).toEqual({
      destination: 'Lisbon',
      origin: 'Berlin',
    });
    expect(tripInputFromText('lisbon', { history: [] })).toEqual({});
  });

  it('reads any text as the hotel choice while the task waits for one', () => {
    const pending: PendingHotelQuestion = {
      question: 'Which?',
      options,
      answerWith: 'hotelChoice',
      answerField: 'hotelId',
      askedBy: { agent: 'hotels', skill: 'find-hotel', taskId: 'h', contextId: 'hc' },
    };
    const task: Task = {
      id: 't',
      contextId: 'c',
      status: {
        state: 'TASK_STATE_INPUT_REQUIRED',
        message: { messageId: 'q', role: 'ROLE_AGENT', parts: [{ text: 'Which?' }, { data: pending }] },
      },
    };
    expect(pendingQuestionOf(task)).toEqual(pending);
    expect(tripInputFromText(' the trip to Lisbon, second one ', { history: [], task })).toEqual({
      hotelChoice: 'the trip to Lisbon, second one',
    });
    expect(pendingQuestionOf({ ...task, status: { ...task.status, state: 'TASK_STATE_COMPLETED' } })).toBeUndefined();
  });

  it('matches an answer to one option by id, name or place, and to none when unclear', () => {
    expect(chosenOption('lis-miradouro', options)?.id).toBe('lis-miradouro');
    expect(chosenOption('Casa do Rio, please.', options)?.id).toBe('lis-casa-do-rio');
    expect(chosenOption('miradouro', options)?.id).toBe('lis-miradouro');
    expect(chosenOption('2', options)?.id).toBe('lis-miradouro');
    expect(chosenOption('#1', options)?.id).toBe('lis-casa-do-rio');
    expect(chosenOption('the second, thanks', options)?.id).toBe('lis-miradouro');
    expect(chosenOption('the one in Chiado', options)).toBeUndefined();
    expect(chosenOption('3', options)).toBeUndefined();
    expect(chosenOption('any of them', options)).toBeUndefined();
  });
});

describe('the workers: what their data parts must hold', () => {
  it("reads a task's result from its last artifact with data", () => {
    const task: Task = {
      id: 't',
      contextId: 'c',
      status: { state: 'TASK_STATE_COMPLETED' },
      artifacts: [
        { artifactId: 'a', parts: [{ data: { first: true } }] },
        {
          artifactId: 'b',
          parts: [{ text: 'summary' }, { data: { reference: 'FH-1', total: { amount: 10, currency: 'EUR' } } }],
        },
        { artifactId: 'c', parts: [{ text: 'no data' }] },
      ],
    };
    expect(readFlightHold(resultDataOf(task))).toMatchObject({
      reference: 'FH-1',
      total: { amount: 10, currency: 'EUR' },
    });
  });

  it('refuses answers without the shape a trip needs', () => {
    expect(
      readFreeDays({ freeDays: ['2026-12-11'], trip: { departure: '2026-12-13', return: '2026-12-11', nights: 2 } }),
    ).toBeUndefined();
    expect(readFreeDays({ trip: { departure: 'Friday', return: '2026-12-13', nights: 2 } })).toBeUndefined();
    expect(
      readFreeDays({ freeDays: ['2026-12-11', 7], trip: { departure: '2026-12-11', return: '2026-12-13', nights: 2 } }),
    ).toEqual({
      freeDays: ['2026-12-11'],
      departure: '2026-12-11',
      return: '2026-12-13',
      nights: 2,
    });
    expect(readFlightHold({ reference: 'FH-1', total: { amount: '10', currency: 'EUR' } })).toBeUndefined();
    const question = (data: unknown): Message => ({
      messageId: 'q',
      role: 'ROLE_AGENT',
      parts: [{ data: data as never }],
    });
    expect(readHotelQuestion(question({ question: 'Which?', options: [...options, { id: 3 }] }))).toBeUndefined();
    expect(readHotelQuestion(question({ question: 'Which?', options, answerField: 'a b' }))).toBeUndefined();
    expect(readHotelQuestion(question({ question: 'Which?', options }))).toEqual({
      question: 'Which?',
      options,
      answerField: 'hotelId',
    });
  });
});
