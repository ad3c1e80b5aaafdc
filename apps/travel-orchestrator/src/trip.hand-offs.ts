import type { Artifact, JsonObject, JsonValue, Message, Task } from '../../../libs/a2a/src/index.js';

/**
 * The structured hand-offs of a trip: what the orchestrator reads from the workers' data parts, and what it writes in
 * its own. The workers' answers come from the network, so each is read field by field and refused when it does not
 * have the shape the trip needs; what is not read is passed on as the worker gave it.
 */

// Type aliases, not interfaces, so they count as JSON values for data parts.
export type Money = { amount: number; currency: string };

/** A task of another agent that did part of the trip. */
export type TaskRef = { agent: string; skill: string; taskId: string; contextId: string };

/** The orchestrator's `trip-dates` artifact: the request and the dates the calendar found. */
export type TripDates = {
  traveller: string;
  origin: string;
  destination: string;
  travellers: number;
  departure: string;
  return: string;
  nights: number;
  freeDays: string[];
  from: TaskRef;
};

/** The orchestrator's `flight` artifact: the flight agent's hold, as it gave it, and the task that made it. */
export type HeldFlight = { hold: JsonObject; reference: string; total: Money; from: TaskRef };

/** A hotel the hotel agent offered: its id and name are what the caller's answer is matched against. */
export type HotelOffer = JsonObject & { id: string; name: string };

/**
 * The data part of the orchestrator's own INPUT_REQUIRED, when the hotel agent asked which hotel: the question and
 * the options passed up as the hotel agent gave them, and the hotel task to resume with the answer.
 */
export type PendingHotelQuestion = {
  question: string;
  options: HotelOffer[];
  /** Answer with a follow-up whose data part is `{ "hotelChoice": "<id>" }`, or whose text names or numbers a hotel. */
  answerWith: 'hotelChoice';
  askedBy: TaskRef;
  /** The field of the hotel agent's input that takes the chosen option's id. */
  answerField: string;
};

/** The final `itinerary` artifact's data part. */
export type Itinerary = {
  traveller: string;
  origin: string;
  destination: string;
  travellers: number;
  departure: string;
  return: string;
  nights: number;
  flight: JsonObject;
  hotel: JsonObject;
  /** Flight and hotel together, when they are in one currency. */
  total?: Money;
  /** Which agent did what, and the id of its task. */
  tasks: Record<string, TaskRef>;
};

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const FIELD = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** The data of a worker's result: the data part (a JSON object) of the task's last artifact that has one. */
export function resultDataOf(task: Task): JsonObject | undefined {
  for (const artifact of [...(task.artifacts ?? [])].reverse()) {
    const data = dataOf(artifact.parts);
    if (data) return data;
  }
  return undefined;
}

/** The calendar's answer: its free days and the longest run of them. */
export function readFreeDays(
  data: JsonObject | undefined,
): { freeDays: string[]; departure: string; return: string; nights: number } | undefined {
  const trip = objectOf(data?.trip);
  const freeDays = Array.isArray(data?.freeDays)
    ? data.freeDays.filter((day): day is string => typeof day === 'string' && DAY.test(day))
    : [];
  const departure = stringOf(trip?.departure);
  const back = stringOf(trip?.return);
  const nights = trip?.nights;
  if (!departure || !back || !DAY.test(departure) || !DAY.test(back) || back < departure || typeof nights !== 'number')
    return undefined;
  return { freeDays, departure, return: back, nights };
}

/** The flight agent's hold: its reference and total, the rest kept as given. */
export function readFlightHold(
  data: JsonObject | undefined,
): { hold: JsonObject; reference: string; total: Money } | undefined {
  const reference = stringOf(data?.reference);
  const total = moneyOf(data?.total);
  return data && reference && total ? { hold: data, reference, total } : undefined;
}

/** The hotel agent's booking: its reservation, hotel name and total, the rest kept as given. */
export function readHotelBooking(
  data: JsonObject | undefined,
): { booking: JsonObject; reservation: string; hotelName: string; total: Money } | undefined {
  const reservation = stringOf(data?.reservation);
  const hotelName = stringOf(objectOf(data?.hotel)?.name);
  const total = moneyOf(data?.total);
  return data && reservation && hotelName && total ? { booking: data, reservation, hotelName, total } : undefined;
}

/** The hotel agent's "which one?": its question and options (each with an id and a name), from the status message. */
export function readHotelQuestion(
  message: Message | undefined,
): { question: string; options: HotelOffer[]; answerField: string } | undefined {
  const data = message ? dataOf(message.parts) : undefined;
  const options = Array.isArray(data?.options) ? data.options.map(objectOf) : [];
  const offers = options.filter(
    (option): option is HotelOffer => typeof option?.id === 'string' && typeof option.name === 'string',
  );
  if (!data || offers.length === 0 || offers.length !== options.length) return undefined;
  const answerField = stringOf(data.answerField) ?? 'hotelId';
  if (!FIELD.test(answerField)) return undefined;
  return { question: stringOf(data.question) ?? 'Which hotel?', options: offers, answerField };
}

/** The hotel question the orchestrator asked its caller, when `task` waits for that answer. */
export function pendingQuestionOf(task: Readonly<Task> | undefined): PendingHotelQuestion | undefined {
  if (task?.status.state !== 'TASK_STATE_INPUT_REQUIRED') return undefined;
  const data = task.status.message ? dataOf(task.status.message.parts) : undefined;
  return data?.answerWith === 'hotelChoice' ? (data as unknown as PendingHotelQuestion) : undefined;
}

/** One of the orchestrator's own artifacts, by name, as it wrote it. */
export function ownArtifactData<T>(task: Readonly<Task> | undefined, name: string): T | undefined {
  const artifact = task?.artifacts?.find((candidate) => candidate.name === name);
  return artifact ? (dataOf(artifact.parts) as T | undefined) : undefined;
}

/**
 * The option the caller's answer picks: its id, its name (the answer contains it, or is a part of it), or its place
 * in the list ("2", "#2", "the second", "2nd"); undefined when it picks none, or more than one.
 */
export function chosenOption(answer: string, options: readonly HotelOffer[]): HotelOffer | undefined {
  const text = answer.trim().toLowerCase();
  const byId = options.find((option) => option.id.toLowerCase() === text);
  if (byId) return byId;
  const named = options.filter((option) => {
    const name = option.name.toLowerCase();
    return text.includes(name) || (text.length >= 4 && name.includes(text));
  });
  if (named.length > 0) return named.length === 1 ? named[0] : undefined;
  const number = /^(?:#|no\.?\s*|number\s*)?(\d{1,2})[.!]?$/.exec(text)?.[1];
  const place = number
    ? Number(number) - 1
    : ORDINALS.findIndex((words) => words.some((word) => new RegExp(`\\b${word}\\b`).test(text)));
  return place >= 0 && place < options.length ? options[place] : undefined;
}

const ORDINALS = [
  ['first', '1st'],
  ['second', '2nd'],
  ['third', '3rd'],
  ['fourth', '4th'],
  ['fifth', '5th'],
];

export function textOf(message: Message | undefined): string {
  return (message?.parts ?? []).flatMap((part) => (part.text !== undefined ? [part.text] : [])).join('\n');
}

export function sumOf(a: Money, b: Money): Money | undefined {
  return a.currency === b.currency ? { amount: a.amount + b.amount, currency: a.currency } : undefined;
}

function dataOf(parts: Artifact['parts']): JsonObject | undefined {
  for (const part of parts) {
    const data = objectOf(part.data);
    if (data) return data;
  }
  return undefined;
}

export function objectOf(value: JsonValue | undefined): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
}

export function stringOf(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function moneyOf(value: JsonValue | undefined): Money | undefined {
  const money = objectOf(value);
  const valid =
    money && typeof money.amount === 'number' && Number.isFinite(money.amount) && typeof money.currency === 'string';
  return valid ? { amount: money.amount as number, currency: money.currency as string } : undefined;
}
