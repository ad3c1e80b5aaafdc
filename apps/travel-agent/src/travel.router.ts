import { Injectable } from '@nestjs/common';
import type { Message, SkillRouter } from '../../../libs/a2a/src/index.js';
import { BOOK_FLIGHT_SKILL_ID } from './book-flight.skill.js';
import { WEATHER_SKILL_ID } from './weather.skill.js';

const WEATHER_WORDS = /\b(weather|forecast|temperature|rain|sunny)\b/i;

/** Sends weather questions to the weather skill and everything else to flight booking. */
@Injectable()
export class TravelRouter implements SkillRouter {
  route(message: Message): string {
    const text = message.parts.map((p) => p.text ?? '').join(' ');
    return WEATHER_WORDS.test(text) ? WEATHER_SKILL_ID : BOOK_FLIGHT_SKILL_ID;
  }
}
