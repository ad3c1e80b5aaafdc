import type { Observable } from 'rxjs';
import type { SkillContext } from './skill-context.js';
import type { SkillEvent } from './skill-event.js';

/** Anything a skill may return: a stream of events, an async generator, or (for one-shot answers) a promise. */
export type SkillResult =
  | Observable<SkillEvent>
  | AsyncIterable<SkillEvent>
  | Iterable<SkillEvent>
  | Promise<SkillEvent | readonly SkillEvent[] | void>;

/**
 * The contract of every `@AgentSkill` class. The returned events drive the task: status changes, artifacts, or a
 * direct reply. Throwing (or erroring the stream) ends the task FAILED with a generic message; the error is logged.
 * `TInput`: the class of the skill's typed input (`@AgentSkill({ input })`), read as `context.input`.
 */
export abstract class A2aSkillHandler<TInput = unknown> {
  /** Runs the skill for one message: yields (or returns) its events, which the engine commits to the task in order. */
  abstract handle(context: SkillContext<TInput>): SkillResult;
}
