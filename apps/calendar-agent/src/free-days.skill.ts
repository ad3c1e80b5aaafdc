import { Inject } from '@nestjs/common';
import {
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  working,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { CALENDAR_OPTIONS, type CalendarOptions } from './calendar.options.js';
import { dayName, freeDaysIn, mondayOf, nextWeekStart, type FreeDays } from './calendar.week.js';
import { FreeDaysInput } from './free-days.input.js';

export const FREE_DAYS_SKILL_ID = 'find-free-days';

/** Answers "when is Ada free next week?" with the free days and the longest run of them, as data and as a sentence. */
@AgentSkill({
  id: FREE_DAYS_SKILL_ID,
  name: 'Find free days',
  description:
    "Finds a user's free days in a week (next week unless told otherwise) and the longest run of them, for a trip.",
  tags: ['calendar', 'availability', 'scheduling'],
  examples: ['{"user": "ada"}', '{"user": "ada", "weekOf": "2026-12-07"}'],
  inputModes: ['application/json'],
  outputModes: ['application/json', 'text/plain'],
  input: FreeDaysInput,
})
export class FreeDaysSkill extends A2aSkillHandler<FreeDaysInput> {
  constructor(@Inject(CALENDAR_OPTIONS) private readonly options: CalendarOptions) {
    super();
  }

  async *handle({ input }: SkillContext<FreeDaysInput>): AsyncGenerator<SkillEvent> {
    const weekStart = input.weekOf ? mondayOf(input.weekOf) : nextWeekStart(this.options.today?.() ?? new Date());
    yield working(`Reading ${input.user}'s calendar for the week of ${dayName(weekStart)}…`);
    const result = freeDaysIn(input.user, weekStart);
    const summary = describe(result);
    yield artifact([{ text: summary }, { data: result, mediaType: 'application/json' }], {
      name: 'free-days',
      description: `Free days of ${input.user}`,
    });
    yield complete(summary);
  }
}

function describe({ user, freeDays, trip }: FreeDays): string {
  const nights = `${trip.nights} night${trip.nights === 1 ? '' : 's'}`;
  return `${user} is free on ${freeDays.map(dayName).join(', ')}; the longest stretch is ${dayName(trip.departure)} to ${dayName(trip.return)} (${nights}).`;
}
