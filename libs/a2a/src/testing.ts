/**
 * `nestjs-a2a/testing`: test your skills and your agent without sockets. `createSkillContext` and
 * `collectSkillEvents` unit-test a skill's `handle()` without Nest; `TestA2aClient` drives a booted module's engine
 * as the bindings do; `statesOf`, `artifactTextsOf` and `expectStates` read what came back, in any test runner.
 *
 * ```ts
 * const events = await collectSkillEvents(new ShoutSkill().handle(createSkillContext({ text: 'hi' })));
 * expectStates(events, ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
 * ```
 */
export { createSkillContext, type SkillContextOverrides, type TestSkillContext } from './testing/test-skill-context.js';
export { collectSkillEvents } from './testing/skill-events.collector.js';
export {
  TestA2aClient,
  eventIdOf,
  type TestA2aCaller,
  type TestA2aResults,
  type TestMessageInput,
  type TestSendOptions,
} from './testing/test-a2a.client.js';
export {
  statesOf,
  artifactTextsOf,
  lastMessageTextOf,
  expectStates,
  type TaskEventSequence,
} from './testing/task-events.assertions.js';
export type { SkillContextControls } from './testing/test-skill-context.js';
export type { StreamingOperationName } from './testing/test-a2a.client.js';
