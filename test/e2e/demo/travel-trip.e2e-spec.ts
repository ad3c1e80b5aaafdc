import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { lastValueFrom, toArray } from 'rxjs';
import { A2aAgentClient, type StreamResponse, type Task } from '../../../libs/a2a/src/client.js';
import { addDays, nextWeekStart } from '../../../apps/calendar-agent/src/calendar.week.js';
import type { Itinerary, PendingHotelQuestion } from '../../../apps/travel-orchestrator/src/trip.hand-offs.js';
import {
  launchTravelAgents,
  type TravelAgentName,
  type TravelAgents,
} from '../../../apps/travel-orchestrator/src/travel-agents.launcher.js';

/**
 * "Arrange next week's trip", end to end: the four agents compiled (`npm run build`) and started as four Node
 * processes on loopback, the calendar serving gRPC only; this test plays the user with the client.
 */
const APPS_DIR = resolve('dist/apps');
const APPS = ['calendar-agent', 'flight-agent', 'hotel-agent', 'travel-orchestrator'];

describe('the travel demo: four agents, four processes', () => {
  let agents: TravelAgents;
  const clients = {} as Record<TravelAgentName, A2aAgentClient>;

  beforeAll(async () => {
    const missing = APPS.filter((app) => !existsSync(resolve(APPS_DIR, app, 'src/main.js')));
    if (missing.length > 0)
      throw new Error(`dist/apps/{${missing.join(',')}} missing: run "npm run build" first (npm test does)`);
    agents = await launchTravelAgents({
      appsDir: APPS_DIR,
      env: { NODE_OPTIONS: '' },
      envOf: { flights: { STEP_DELAY_MS: '10' } },
      readyTimeoutMs: 40_000,
    });
    for (const agent of agents.all)
      clients[agent.name] = new A2aAgentClient({
        cardUrl: agent.cardUrl,
        network: { allowedCidrs: ['127.0.0.1/32'] },
        timeoutMs: 10_000,
      });
  }, 45_000);

  afterAll(async () => {
    await Promise.all(Object.values(clients).map((client) => client.close()));
    await agents?.stop();
  }, 15_000);

  const stream = (message: Parameters<A2aAgentClient['stream']>[0]) =>
    lastValueFrom(clients.orchestrator.stream(message).pipe(toArray()));

  it('publishes the cards the orchestrator chooses by: the calendar on gRPC only, the flight agent streaming', async () => {
    const calendar = await clients.calendar.card();
    expect(calendar.supportedInterfaces.map((entry) => entry.protocolBinding)).toEqual(['GRPC']);
    expect(calendar.skills.map((skill) => [skill.id, skill.tags])).toEqual([
      ['find-free-days', ['calendar', 'availability', 'scheduling']],
    ]);
    expect((await clients.flights.card()).capabilities.streaming).toBe(true);
    expect((await clients.orchestrator.card()).skills.map((skill) => skill.id)).toEqual(['plan-trip']);
  });

  it('streams its progress, passes the hotel question up, and on the answer resumes the hotel task and completes', async () => {
    const first = await stream("arrange next week's trip to Lisbon");
    const asked = taskAfter(first);
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const progress = statusTexts(first);
    expect(progress[1]).toMatch(
      /^Chosen from their cards: free-days → calendar\/find-free-days \(.*over GRPC\); flight → flights\/hold-flight \(.*streams.*\); hotel → hotels\/find-hotel/,
    );
    // The flight agent's stream, passed on step by step.
    expect(progress.filter((text) => text.startsWith('flights: '))).toEqual([
      expect.stringMatching(/^flights: Searching flights Paris → Lisbon, \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}…$/),
      expect.stringMatching(/^flights: Offer 1 of 3: /),
      expect.stringMatching(/^flights: Offer 2 of 3: /),
      expect.stringMatching(/^flights: Offer 3 of 3: /),
      expect.stringMatching(/^flights: Holding the cheapest, /),
      expect.stringMatching(/^flights: held FH-[0-9A-F]{6} for \d+ EUR, after 4 streamed artifact updates\.$/),
    ]);
    expect(artifactNames(first)).toEqual(['trip-dates', 'flight']);

    // The question, passed up with the options and the hotel task it came from.
    const [questionText, questionData] = asked.status.message!.parts;
    expect(questionText.text).toMatch(
      /^hotels asks: Which of these two hotels\? 1\. Casa do Rio \(Alfama, 4★, \d+ EUR in all\); 2\. Hotel Miradouro /,
    );
    const pending = questionData.data as unknown as PendingHotelQuestion;
    expect(pending).toMatchObject({ answerWith: 'hotelChoice', askedBy: { agent: 'hotels', skill: 'find-hotel' } });
    expect(pending.options.map((option) => option.id)).toEqual(['lis-casa-do-rio', 'lis-miradouro']);
    const hotelTask = await clients.hotels.getTask(pending.askedBy.taskId);
    expect(hotelTask.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(hotelTask.status.message?.parts[1].data).toMatchObject({ options: pending.options });

    // The caller's answer, as data, on the orchestrator's task.
    const second = await stream({
      taskId: asked.id,
      contextId: asked.contextId,
      parts: [{ data: { hotelChoice: 'lis-casa-do-rio' } }],
    });
    const done = taskAfter(second, asked);
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    // A follow-up's stream starts with the task as it stood (still asking); then the resumed run's updates.
    expect(statusTexts(second.filter((event) => !('task' in event)))[0]).toBe(
      'hotels: booking Casa do Rio, your choice…',
    );
    const itinerary = itineraryOf(done);
    const week = nextWeekStart(new Date());
    expect(itinerary).toMatchObject({
      traveller: 'traveller',
      origin: 'Paris',
      destination: 'Lisbon',
      travellers: 1,
      hotel: { hotel: { id: 'lis-casa-do-rio' } },
    });
    expect(
      itinerary.departure >= week && itinerary.return <= addDays(week, 6) && itinerary.departure < itinerary.return,
    ).toBe(true);
    expect(itinerary.total?.amount).toBe(
      (itinerary.flight.total as { amount: number }).amount + (itinerary.hotel.total as { amount: number }).amount,
    );
    expect(textOfStatus(done)).toBe(done.artifacts!.find((artifact) => artifact.name === 'itinerary')!.parts[0].text);

    // Every worker holds the task the itinerary names, the calendar's read back over gRPC.
    const { tasks } = itinerary;
    expect(Object.keys(tasks)).toEqual(['free-days', 'flight', 'hotel']);
    expect(tasks.hotel.taskId).toBe(pending.askedBy.taskId);
    const calendarTask = await clients.calendar.getTask(tasks['free-days'].taskId);
    expect(calendarTask.status.state).toBe('TASK_STATE_COMPLETED');
    expect(calendarTask.artifacts?.[0].parts[1].data).toMatchObject({
      user: 'traveller',
      trip: { departure: itinerary.departure, return: itinerary.return },
    });
    const flightTask = await clients.flights.getTask(tasks.flight.taskId);
    expect(flightTask.artifacts?.map((artifact) => [artifact.name, artifact.parts.length])).toEqual([
      ['offers', 3],
      ['flight-hold', 2],
    ]);
    expect(flightTask.artifacts?.[1].parts[1].data).toEqual(itinerary.flight);
    const booked = await clients.hotels.getTask(tasks.hotel.taskId, { historyLength: 10 });
    expect(booked.status.state).toBe('TASK_STATE_COMPLETED');
    // One hotel task: the search, then the follow-up with the whole input and the chosen id.
    expect(
      booked.history?.filter((message) => message.role === 'ROLE_USER').map((message) => message.parts[0].data),
    ).toEqual([
      { city: 'Lisbon', checkIn: itinerary.departure, checkOut: itinerary.return, guests: 1 },
      {
        city: 'Lisbon',
        checkIn: itinerary.departure,
        checkOut: itinerary.return,
        guests: 1,
        hotelId: 'lis-casa-do-rio',
      },
    ]);
  }, 30_000);

  it('asks where to when the request names no place, and asks again when the hotel answer is unclear', async () => {
    const where = taskAfter(await stream("arrange next week's trip"));
    expect(where.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(textOfStatus(where)).toBe(`Where would you like to go? For example: "arrange next week's trip to Lisbon".`);

    const asked = taskAfter(
      await stream({ taskId: where.id, contextId: where.contextId, parts: [{ text: 'Lisbon' }] }),
      where,
    );
    expect(textOfStatus(asked)).toMatch(/^hotels asks: Which of these two hotels\?/);

    const again = taskAfter(
      await stream({ taskId: asked.id, contextId: asked.contextId, parts: [{ text: 'the one with the pink door' }] }),
      asked,
    );
    expect(again.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(textOfStatus(again)).toMatch(
      /^I could not tell which hotel you meant\. hotels asks: Which of these two hotels\?/,
    );

    const done = taskAfter(
      await stream({ taskId: again.id, contextId: again.contextId, parts: [{ text: '2' }] }),
      again,
    );
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(itineraryOf(done).hotel).toMatchObject({ hotel: { id: 'lis-miradouro', name: 'Hotel Miradouro' } });
  }, 30_000);
});

/** The task as a stream's reader knows it at the end: the snapshot, then every status and artifact update. */
function taskAfter(events: StreamResponse[], known?: Task): Task {
  let task = known;
  for (const event of events) {
    if ('task' in event) task = event.task;
    else if ('statusUpdate' in event) task = { ...task!, status: event.statusUpdate.status };
    else if ('artifactUpdate' in event)
      task = { ...task!, artifacts: [...(task!.artifacts ?? []), event.artifactUpdate.artifact] };
  }
  if (!task) throw new Error('no task in the stream');
  return task;
}

function statusTexts(events: StreamResponse[]): string[] {
  return events.flatMap((event) => {
    const message =
      'task' in event
        ? event.task.status.message
        : 'statusUpdate' in event
          ? event.statusUpdate.status.message
          : undefined;
    return message?.parts[0]?.text !== undefined ? [message.parts[0].text] : [];
  });
}

function artifactNames(events: StreamResponse[]): string[] {
  return events.flatMap((event) => ('artifactUpdate' in event ? [event.artifactUpdate.artifact.name ?? ''] : []));
}

function textOfStatus(task: Task): string | undefined {
  return task.status.message?.parts[0]?.text;
}

function itineraryOf(task: Task): Itinerary {
  return task.artifacts?.find((artifact) => artifact.name === 'itinerary')?.parts[1].data as unknown as Itinerary;
}
