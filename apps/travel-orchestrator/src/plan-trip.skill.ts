import { Inject, Logger } from '@nestjs/common';
import {
  A2aClient,
  A2aClientError,
  type Artifact,
  type Message,
  type Task,
  type TaskState,
} from '../../../libs/a2a/src/client.js';
import {
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  fail,
  requireInput,
  SKILL_ID_METADATA_KEY,
  working,
  type JsonObject,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import type { AgentChoice, AgentNeed } from './agent-chooser.js';
import { AgentDirectory } from './agent.directory.js';
import { iterate } from './observable.iterator.js';
import { DEFAULT_HOME_CITY, ORCHESTRATOR_OPTIONS, type TravelOrchestratorOptions } from './orchestrator.options.js';
import { PlanTripInput, tripInputFromText } from './plan-trip.input.js';
import {
  chosenOption,
  ownArtifactData,
  pendingQuestionOf,
  readFlightHold,
  readFreeDays,
  readHotelBooking,
  readHotelQuestion,
  resultDataOf,
  sumOf,
  textOf,
  type HeldFlight,
  type Itinerary,
  type PendingHotelQuestion,
  type TaskRef,
  type TripDates,
} from './trip.hand-offs.js';
import { FLIGHT_NEED, FREE_DAYS_NEED, HOTEL_NEED, TRIP_NEEDS } from './trip.needs.js';
import { dayName, hotelQuestionText, itinerarySummary, money, nightsText } from './trip.wording.js';

export const PLAN_TRIP_SKILL_ID = 'plan-trip';

const logger = new Logger('PlanTripSkill');

/** A step of the trip that cannot go on: the task FAILS with this message, which the caller reads. */
class TripStepError extends Error {}

/** An agent and the skill of it that does a step. */
type Worker = { agent: string; skill: string };

/**
 * Arranges a trip by asking other agents, chosen from their cards: the traveller's free days next week (a calendar
 * agent, over whatever binding its card offers: gRPC in the demo), a flight for them (followed as a stream, each of
 * the flight agent's updates passed on as progress), and a hotel. Every hand-off is a data part. When the hotel
 * agent asks which hotel, the task goes INPUT_REQUIRED with the question and the options; the caller's answer, a
 * follow-up on this task, is passed on to the hotel agent's task, and the trip completes with an `itinerary` artifact
 * (a sentence and the data). What a resumed run needs is kept in the task itself (its `trip-dates` and `flight`
 * artifacts, the question's data part), so it survives in whatever store the agent uses.
 */
@AgentSkill({
  id: PLAN_TRIP_SKILL_ID,
  name: 'Plan a trip',
  description:
    'Arranges a trip next week: finds your free days, holds a flight and books a hotel by asking other agents, and asks you when a choice is yours.',
  tags: ['travel', 'trip', 'planning', 'orchestration'],
  examples: ["arrange next week's trip to Lisbon", '{"destination": "Lisbon", "origin": "Paris", "traveller": "ada"}'],
  inputModes: ['text/plain', 'application/json'],
  outputModes: ['text/plain', 'application/json'],
  input: PlanTripInput,
  parseText: tripInputFromText,
})
export class PlanTripSkill extends A2aSkillHandler<PlanTripInput> {
  private readonly homeCity: string;

  constructor(
    private readonly a2a: A2aClient,
    private readonly directory: AgentDirectory,
    @Inject(ORCHESTRATOR_OPTIONS) options: TravelOrchestratorOptions,
  ) {
    super();
    this.homeCity = options.homeCity ?? DEFAULT_HOME_CITY;
  }

  async *handle(context: SkillContext<PlanTripInput>): AsyncGenerator<SkillEvent> {
    try {
      const pending = pendingQuestionOf(context.task);
      yield* pending ? this.resume(context, pending) : this.plan(context);
    } catch (error) {
      if (context.signal.aborted) return;
      if (error instanceof TripStepError) {
        yield fail(error.message);
        return;
      }
      throw error;
    }
  }

  private async *plan({ input, principal, signal }: SkillContext<PlanTripInput>): AsyncGenerator<SkillEvent> {
    if (!input.destination) {
      yield requireInput(`Where would you like to go? For example: "arrange next week's trip to Lisbon".`);
      return;
    }
    const traveller = input.traveller ?? (principal.authenticated ? principal.id : 'traveller');
    const origin = input.origin ?? this.homeCity;
    const { destination } = input;
    const travellers = input.travellers ?? 1;

    yield working(
      `Planning ${traveller}'s trip from ${origin} to ${destination} next week. Reading the agents' cards…`,
    );
    const choices = await this.directory.choose(TRIP_NEEDS, signal);
    const missing = TRIP_NEEDS.find((need) => !choices.get(need.id));
    if (missing) throw new TripStepError(`No agent I know can ${missing.description}.`);
    const [calendar, flights, hotels] = TRIP_NEEDS.map((need) => workerOf(choices.get(need.id)!));
    yield working(
      `Chosen from their cards: ${TRIP_NEEDS.map((need) => describeChoice(need, choices.get(need.id)!)).join('; ')}.`,
    );

    yield working(`${calendar.agent}: when is ${traveller} free next week?`);
    const datesTask = await this.ask(calendar, FREE_DAYS_NEED, { user: traveller }, signal);
    expectState(calendar, datesTask, 'TASK_STATE_COMPLETED', FREE_DAYS_NEED.description);
    const free = readFreeDays(resultDataOf(datesTask));
    if (!free) throw new TripStepError(`${calendar.agent} gave no dates I can use.`);
    const dates: TripDates = { traveller, origin, destination, travellers, ...free, from: refOf(calendar, datesTask) };
    yield artifact(
      { data: dates },
      { name: 'trip-dates', description: `Free days of ${traveller} and the trip's dates` },
    );
    yield working(
      `${calendar.agent}: ${traveller} is free ${dayName(dates.departure)} to ${dayName(dates.return)}, ${nightsText(dates.nights)}.`,
    );

    const flight = yield* this.holdFlight(flights, dates, signal);
    yield artifact({ data: flight }, { name: 'flight', description: `Flight hold ${flight.reference}` });

    yield working(
      `${hotels.agent}: a hotel in ${destination}, ${dayName(dates.departure)} to ${dayName(dates.return)}…`,
    );
    const hotelTask = await this.ask(hotels, HOTEL_NEED, hotelSearchOf(dates), signal);
    yield* this.afterHotel(hotelTask, refOf(hotels, hotelTask), dates, flight);
  }

  /** The caller answered the hotel question: pass the choice on to the hotel agent's task, then finish the trip. */
  private async *resume(
    { input, task, signal }: SkillContext<PlanTripInput>,
    pending: PendingHotelQuestion,
  ): AsyncGenerator<SkillEvent> {
    const option = input.hotelChoice ? chosenOption(input.hotelChoice, pending.options) : undefined;
    if (!option) {
      yield requireInput([
        { text: `I could not tell which hotel you meant. ${hotelQuestionText(pending)}` },
        { data: pending, mediaType: 'application/json' },
      ]);
      return;
    }
    const dates = ownArtifactData<TripDates>(task, 'trip-dates');
    const flight = ownArtifactData<HeldFlight>(task, 'flight');
    if (!dates || !flight) throw new TripStepError('This trip lost its dates or its flight; please ask again.');
    const { askedBy } = pending;
    yield working(`${askedBy.agent}: booking ${option.name}, your choice…`);
    const answer = { ...hotelSearchOf(dates), [pending.answerField]: option.id };
    const hotelTask = await this.ask(askedBy, HOTEL_NEED, answer, signal, {
      taskId: askedBy.taskId,
      contextId: askedBy.contextId,
    });
    yield* this.afterHotel(hotelTask, askedBy, dates, flight);
  }

  /** Follows the flight agent's stream, passing its updates on as progress, and returns its hold. */
  private async *holdFlight(
    flights: Worker,
    dates: TripDates,
    signal: AbortSignal,
  ): AsyncGenerator<SkillEvent, HeldFlight> {
    const search = {
      from: dates.origin,
      to: dates.destination,
      departure: dates.departure,
      return: dates.return,
      travellers: dates.travellers,
    };
    const artifacts = new Map<string, Artifact>();
    let task: { id: string; contextId: string } | undefined;
    let state: TaskState | undefined;
    let said = '';
    let chunks = 0;
    try {
      for await (const event of iterate(
        this.a2a.agent(flights.agent).stream(dataMessage(search), { signal, metadata: skillHint(flights) }),
      )) {
        if ('message' in event)
          throw new TripStepError(`${flights.agent} answered with a message, not a task: ${textOf(event.message)}`);
        if ('task' in event) {
          task = { id: event.task.id, contextId: event.task.contextId };
          state = event.task.status.state;
          for (const given of event.task.artifacts ?? []) artifacts.set(given.artifactId, given);
          said = textOf(event.task.status.message);
          if (said && state === 'TASK_STATE_WORKING') yield working(`${flights.agent}: ${said}`);
        } else if ('statusUpdate' in event) {
          task = { id: event.statusUpdate.taskId, contextId: event.statusUpdate.contextId };
          state = event.statusUpdate.status.state;
          said = textOf(event.statusUpdate.status.message);
          if (said && state === 'TASK_STATE_WORKING') yield working(`${flights.agent}: ${said}`);
        } else if ('artifactUpdate' in event) {
          const { artifact: chunk, append } = event.artifactUpdate;
          const known = artifacts.get(chunk.artifactId);
          artifacts.set(
            chunk.artifactId,
            append && known ? { ...known, parts: [...known.parts, ...chunk.parts] } : chunk,
          );
          chunks++;
        }
      }
    } catch (error) {
      // The trip was canceled while the flight agent worked for it: leaving its stream does not stop that task (spec §3.5.2).
      if (signal.aborted && task) this.cancelWorkerTask(flights, task.id);
      throw stepError(flights.agent, FLIGHT_NEED, error);
    }
    if (!task) throw new TripStepError(`${flights.agent} ended its stream before it made a task.`);
    if (state !== 'TASK_STATE_COMPLETED')
      throw new TripStepError(`${flights.agent} could not ${FLIGHT_NEED.description}: ${said || state}`);
    const held = readFlightHold(
      resultDataOf({ id: task.id, contextId: task.contextId, status: { state }, artifacts: [...artifacts.values()] }),
    );
    if (!held) throw new TripStepError(`${flights.agent} held no flight I can use.`);
    yield working(
      `${flights.agent}: held ${held.reference} for ${money(held.total)}, after ${chunks} streamed artifact updates.`,
    );
    return { ...held, from: refOf(flights, task) };
  }

  /** Where the hotel task stands: a question to pass up, a booking that completes the trip, or a failure. */
  private async *afterHotel(
    hotelTask: Task,
    askedBy: TaskRef,
    dates: TripDates,
    flight: HeldFlight,
  ): AsyncGenerator<SkillEvent> {
    const { state, message } = hotelTask.status;
    if (state === 'TASK_STATE_INPUT_REQUIRED') {
      const asked = readHotelQuestion(message);
      if (!asked)
        throw new TripStepError(
          `${askedBy.agent} asked something I cannot pass on: ${textOf(message) || 'no question'}`,
        );
      const pending: PendingHotelQuestion = {
        question: asked.question,
        options: asked.options,
        answerWith: 'hotelChoice',
        askedBy,
        answerField: asked.answerField,
      };
      yield requireInput([{ text: hotelQuestionText(pending) }, { data: pending, mediaType: 'application/json' }]);
      return;
    }
    expectState(askedBy, hotelTask, 'TASK_STATE_COMPLETED', HOTEL_NEED.description);
    const booking = readHotelBooking(resultDataOf(hotelTask));
    if (!booking) throw new TripStepError(`${askedBy.agent} gave no booking I can use.`);
    const { from: calendarTask, freeDays: _freeDays, ...trip } = dates;
    const itinerary: Itinerary = {
      ...trip,
      flight: flight.hold,
      hotel: booking.booking,
      ...(sumOf(flight.total, booking.total) ? { total: sumOf(flight.total, booking.total) } : {}),
      tasks: { [FREE_DAYS_NEED.id]: calendarTask, [FLIGHT_NEED.id]: flight.from, [HOTEL_NEED.id]: askedBy },
    };
    const summary = itinerarySummary(itinerary);
    yield artifact([{ text: summary }, { data: itinerary, mediaType: 'application/json' }], {
      name: 'itinerary',
      description: `Trip to ${dates.destination}`,
    });
    yield complete(summary);
  }

  /** Cancels a worker's task that this trip no longer needs; best effort: the log says when the worker refused. */
  private cancelWorkerTask(worker: Worker, taskId: string): void {
    this.a2a
      .agent(worker.agent)
      .cancelTask(taskId)
      .catch((error: unknown) =>
        logger.warn(
          `${worker.agent}: task ${taskId} could not be canceled: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
  }

  /** SendMessage to a worker with one data part (a follow-up when `task` is given); its task, however it ended. */
  private async ask(
    worker: Worker,
    need: AgentNeed,
    data: JsonObject,
    signal: AbortSignal,
    task?: { taskId: string; contextId: string },
  ): Promise<Task> {
    let answer: Task | Message;
    try {
      answer = await this.a2a
        .agent(worker.agent)
        .send({ ...dataMessage(data), ...task }, { signal, metadata: skillHint(worker) });
    } catch (error) {
      throw stepError(worker.agent, need, error);
    }
    if (!('status' in answer))
      throw new TripStepError(`${worker.agent} answered with a message, not a task: ${textOf(answer)}`);
    return answer;
  }
}

function dataMessage(data: JsonObject): { parts: Array<{ data: JsonObject; mediaType: string }> } {
  return { parts: [{ data, mediaType: 'application/json' }] };
}

/** Names the chosen skill in the request's metadata, so an agent with several skills routes to that one. */
function skillHint(worker: Worker): JsonObject {
  return { [SKILL_ID_METADATA_KEY]: worker.skill };
}

function hotelSearchOf(dates: TripDates): JsonObject {
  return { city: dates.destination, checkIn: dates.departure, checkOut: dates.return, guests: dates.travellers };
}

function workerOf(choice: AgentChoice): Worker {
  return { agent: choice.agent, skill: choice.skill.id };
}

function refOf(worker: Worker, task: { id: string; contextId: string }): TaskRef {
  return { agent: worker.agent, skill: worker.skill, taskId: task.id, contextId: task.contextId };
}

function describeChoice(need: AgentNeed, choice: AgentChoice): string {
  return `${need.id} → ${choice.agent}/${choice.skill.id} (${choice.reason})`;
}

function expectState(worker: Worker, task: Task, expected: TaskState, what: string): void {
  if (task.status.state !== expected)
    throw new TripStepError(`${worker.agent} could not ${what}: ${textOf(task.status.message) || task.status.state}`);
}

/** A client error (unreachable, timed out, refused…) as the step's failure: the caller learns its kind, the log the rest. */
function stepError(agent: string, need: AgentNeed, error: unknown): unknown {
  if (!(error instanceof A2aClientError)) return error;
  logger.warn(`${agent} (${need.id}): ${error.kind}: ${error.message}`);
  return new TripStepError(`${agent} could not ${need.description}: ${error.kind}.`);
}
