import { lastValueFrom, toArray } from 'rxjs';
import { skillEvents } from '../engine/skill-result.js';
import type { SkillResult } from '../skills/a2a-skill.handler.js';
import type { SkillEvent } from '../skills/skill-event.js';

/**
 * Every event a skill's `handle()` returned, in order, whatever its shape (an Observable, an async or sync iterable, a
 * promise of one event, of several or of nothing), read the way the engine reads it. Rejects with the skill's error,
 * thrown or emitted. Resolves when the skill's stream ends, so a skill that never ends needs its context aborted.
 */
export function collectSkillEvents(result: SkillResult): Promise<SkillEvent[]> {
  return lastValueFrom(skillEvents(() => result).pipe(toArray()));
}
