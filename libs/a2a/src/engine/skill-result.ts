import { isObservable, Observable, type Subscriber } from 'rxjs';
import type { SkillResult } from '../skills/a2a-skill.handler.js';
import type { SkillEvent } from '../skills/skill-event.js';

/**
 * Whatever shape a skill returned, as one Observable; a synchronous throw becomes an error notification. The skill runs
 * on subscription. Iterables and promises are read with native loops rather than rxjs's `from`, whose down-levelled
 * async iteration costs more per event than the rest of the event's handling.
 */
export function skillEvents(run: () => SkillResult): Observable<SkillEvent> {
  return new Observable<SkillEvent>((subscriber) => {
    // A throw here reaches the subscriber as an error: rxjs catches errors of the subscribe function.
    const result = run();
    if (isObservable(result)) return result.subscribe(subscriber);
    if (isPromiseLike(result)) {
      result.then(
        (value) =>
          emitAll(
            subscriber,
            value == null ? [] : Array.isArray(value) ? (value as SkillEvent[]) : [value as SkillEvent],
          ),
        (error: unknown) => subscriber.error(error),
      );
      return undefined;
    }
    if (isAsyncIterable(result)) {
      void emitAsync(subscriber, result);
      return undefined;
    }
    emitAll(subscriber, result as Iterable<SkillEvent>);
    return undefined;
  });
}

function emitAll(subscriber: Subscriber<SkillEvent>, events: Iterable<SkillEvent>): void {
  try {
    for (const event of events) {
      subscriber.next(event);
      if (subscriber.closed) return;
    }
  } catch (error) {
    return subscriber.error(error);
  }
  subscriber.complete();
}

/** Stops reading (which runs the generator's `finally`) as soon as nobody listens any more. */
async function emitAsync(subscriber: Subscriber<SkillEvent>, events: AsyncIterable<SkillEvent>): Promise<void> {
  try {
    for await (const event of events) {
      if (subscriber.closed) return;
      subscriber.next(event);
      if (subscriber.closed) return;
    }
  } catch (error) {
    return subscriber.error(error);
  }
  subscriber.complete();
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

function isAsyncIterable(value: unknown): value is AsyncIterable<SkillEvent> {
  return typeof (value as AsyncIterable<unknown> | null)?.[Symbol.asyncIterator] === 'function';
}
