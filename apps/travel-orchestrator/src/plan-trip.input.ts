import { IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import type { Message, Task } from '../../../libs/a2a/src/client.js';
import { pendingQuestionOf, textOf } from './trip.hand-offs.js';

/**
 * The plan-trip skill's input: a data part `{ "destination": "Lisbon", "origin": "Paris", "traveller": "ada",
 * "travellers": 1 }`, or what {@link tripInputFromText} reads from "arrange next week's trip to Lisbon". When the
 * orchestrator asked which hotel, the answer is `{ "hotelChoice": "<an option's id>" }`, or text naming it.
 */
export class PlanTripInput {
  /** Where to; asked for when absent. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  destination?: string;

  /** Where from; the orchestrator's home city when absent. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  origin?: string;

  /** Whose calendar; the caller's principal, or "traveller" for an anonymous caller. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  traveller?: string;

  /** How many travel (seats and hotel guests). Default 1. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(9)
  travellers?: number;

  /** The answer to "which hotel?": an option's id, its name, or its number in the list. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  hotelChoice?: string;
}

// "to Lisbon", "from Paris": a place runs to a word that cannot be part of it, punctuation or the end.
const STOP = String.raw`(?=\s+(?:to|from|for|next|this|on|with|in|please)\b|[,.!?;]|$)`;
const DESTINATION = new RegExp(String.raw`\bto\s+([\p{L}][\p{L} .'-]*?)${STOP}`, 'giu');
const ORIGIN = new RegExp(String.raw`\bfrom\s+([\p{L}][\p{L} .'-]*?)${STOP}`, 'giu');
// A bare answer to "where to?": a few words of letters.
const BARE_PLACE = /^\s*(\p{L}[\p{L} .'-]{0,60}?)\s*[.!?]?\s*$/u;

/**
 * `parseText` of the plan-trip skill. When the task waits for a hotel choice, the text is that choice. Otherwise the
 * trip is read from the task's user messages so far, later ones winning ("to Lisbon"; "from Paris"); a bare place
 * name answers "where to?".
 */
export function tripInputFromText(
  text: string,
  { history, task }: { history: readonly Message[]; task?: Readonly<Task> },
): Partial<PlanTripInput> {
  if (pendingQuestionOf(task)) return { hotelChoice: text.trim().slice(0, 200) };
  const input: Partial<PlanTripInput> = {};
  const texts = [...history.filter((message) => message.role === 'ROLE_USER').map(textOf), text];
  for (const said of texts) {
    const destination = lastCapture(DESTINATION, said);
    const origin = lastCapture(ORIGIN, said);
    if (destination) input.destination = placeName(destination);
    if (origin) input.origin = placeName(origin);
  }
  const bare = task && !input.destination ? BARE_PLACE.exec(text)?.[1] : undefined;
  if (bare) input.destination = placeName(bare);
  return input;
}

function lastCapture(pattern: RegExp, text: string): string | undefined {
  return [...text.matchAll(pattern)].at(-1)?.[1]?.trim() || undefined;
}

function placeName(raw: string): string {
  return raw
    .trim()
    .split(/\s+/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase())
    .join(' ');
}
