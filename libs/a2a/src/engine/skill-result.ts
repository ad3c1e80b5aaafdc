import { from, isObservable, mergeMap, EMPTY, of, defer, type Observable } from 'rxjs';
import type { SkillResult } from '../skills/a2a-skill.handler.js';
import type { SkillEvent } from '../skills/skill-event.js';

/** Whatever shape a skill returned, as one Observable; a synchronous throw becomes an error notification. */
export function skillEvents(run: () => SkillResult): Observable<SkillEvent> {
  return defer(() => {
    const result = run();
    if (isObservable(result)) return result;
    if (isPromiseLike(result)) {
      return from(result).pipe(mergeMap((value) => (value == null ? EMPTY : Array.isArray(value) ? from(value) : of(value as SkillEvent))));
    }
    return from(result as AsyncIterable<SkillEvent> | Iterable<SkillEvent>);
  });
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}
