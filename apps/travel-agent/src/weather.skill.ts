import { Inject } from '@nestjs/common';
import { createHash } from 'node:crypto';
import {
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  requireInput,
  working,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { pause } from './travel.pause.js';
import { DEFAULT_STEP_DELAY_MS, TRAVEL_OPTIONS, type TravelOptions } from './travel.options.js';

export const WEATHER_SKILL_ID = 'weather';

// A type alias, not an interface, so it counts as a JSON value for the artifact's data part.
export type Forecast = {
  city: string;
  conditions: string;
  highC: number;
  lowC: number;
  chanceOfRainPercent: number;
};

// "weather in Tokyo", "forecast for New York tomorrow?": the city runs to a time word, punctuation or the end.
const CITY = /\b(?:in|for|at)\s+([A-Za-z][A-Za-z .'-]*?)(?=\s+(?:today|tomorrow|this|next|on)\b|[,.!?;]|$)/i;
// A bare answer to "which city?": a few words of letters.
const BARE_CITY = /^\s*([A-Za-z][A-Za-z .'-]{0,40}?)\s*[.!?]?\s*$/;

const CONDITIONS = ['sunny', 'partly cloudy', 'cloudy', 'light rain', 'showers', 'windy', 'foggy', 'thunderstorms'];

/** A deterministic forecast for "weather in <city>": the same city always gets the same weather, as text and data. */
@AgentSkill({
  id: WEATHER_SKILL_ID,
  name: 'Weather forecast',
  description: "Gives tomorrow's forecast for a city, as a sentence and as structured data.",
  tags: ['travel', 'weather'],
  examples: ['What is the weather in Tokyo?', 'forecast for Lisbon'],
  inputModes: ['text/plain'],
  outputModes: ['text/plain', 'application/json'],
})
export class WeatherSkill extends A2aSkillHandler {
  private readonly stepDelayMs: number;

  constructor(@Inject(TRAVEL_OPTIONS) options: TravelOptions) {
    super();
    this.stepDelayMs = options.stepDelayMs ?? DEFAULT_STEP_DELAY_MS;
  }

  async *handle(context: SkillContext): AsyncGenerator<SkillEvent> {
    // On a follow-up the answer to "which city?" may be the bare city name.
    const city = cityIn(context.text) ?? (context.task ? BARE_CITY.exec(context.text)?.[1] : undefined);
    if (!city) {
      yield requireInput('For which city would you like the forecast?');
      return;
    }
    const name = cityName(city);
    yield working(`Checking the forecast for ${name}…`);
    if (!(await pause(this.stepDelayMs, context.signal))) return;
    const forecast = forecastFor(name);
    const summary = describe(forecast);
    yield artifact([{ text: summary }, { data: forecast, mediaType: 'application/json' }], {
      name: 'forecast',
      description: `Forecast for ${name}`,
    });
    yield complete(summary);
  }
}

export function cityIn(text: string): string | undefined {
  return CITY.exec(text)?.[1]?.trim() || undefined;
}

export function forecastFor(city: string): Forecast {
  const digest = createHash('sha256').update(city.toLowerCase()).digest();
  const highC = 4 + (digest[1] % 28);
  return {
    city,
    conditions: CONDITIONS[digest[0] % CONDITIONS.length],
    highC,
    lowC: highC - (3 + (digest[2] % 8)),
    chanceOfRainPercent: (digest[3] % 11) * 10,
  };
}

function describe(f: Forecast): string {
  return `${f.city} tomorrow: ${f.conditions}, high ${f.highC}°C, low ${f.lowC}°C, ${f.chanceOfRainPercent}% chance of rain.`;
}

function cityName(raw: string): string {
  return raw
    .trim()
    .split(/\s+/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase())
    .join(' ');
}
