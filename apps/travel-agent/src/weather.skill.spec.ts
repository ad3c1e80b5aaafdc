import 'reflect-metadata';
import type { Task } from '../../../libs/a2a/src/index.js';
import {
  artifactTextsOf,
  collectSkillEvents,
  createSkillContext,
  expectStates,
  lastMessageTextOf,
} from '../../../libs/a2a/src/testing.js';
import { WeatherSkill, forecastFor } from './weather.skill.js';

/** The weather skill on its own, with the testing kit: no Nest, no engine, no pauses. */
describe('WeatherSkill', () => {
  const skill = new WeatherSkill({ baseUrl: 'http://localhost', stepDelayMs: 0 });

  it('forecasts the city it is asked about, as a sentence and as data', async () => {
    const events = await collectSkillEvents(
      skill.handle(createSkillContext({ text: 'What is the weather in new york tomorrow?' })),
    );
    expectStates(events, ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    const forecast = forecastFor('New York');
    const summary = lastMessageTextOf(events);
    expect(summary).toMatch(/^New York tomorrow: .+, high -?\d+°C, low -?\d+°C, \d+% chance of rain\.$/);
    expect(artifactTextsOf(events)).toEqual([summary]);
    const [artifact] = events.filter((event) => event.kind === 'artifact');
    expect(artifact).toMatchObject({
      artifact: { name: 'forecast', parts: [{ text: summary }, { data: forecast, mediaType: 'application/json' }] },
    });
  });

  it('asks for the city when the question names none', async () => {
    const events = await collectSkillEvents(skill.handle(createSkillContext({ text: 'Will it rain?' })));
    expectStates(events, ['TASK_STATE_INPUT_REQUIRED']);
    expect(lastMessageTextOf(events)).toBe('For which city would you like the forecast?');
  });

  it('takes a bare city name as the answer on a follow-up', async () => {
    const task: Task = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_INPUT_REQUIRED' } };
    const events = await collectSkillEvents(skill.handle(createSkillContext({ text: 'lisbon', task })));
    expectStates(events, ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    expect(lastMessageTextOf(events)).toMatch(/^Lisbon tomorrow: /);
  });

  it('does not take a bare word as a city on a new task', async () => {
    expectStates(await collectSkillEvents(skill.handle(createSkillContext({ text: 'lisbon' }))), [
      'TASK_STATE_INPUT_REQUIRED',
    ]);
  });

  it('stops without a forecast when the task is canceled while it checks', async () => {
    const slow = new WeatherSkill({ baseUrl: 'http://localhost', stepDelayMs: 60_000 });
    const context = createSkillContext({ text: 'forecast for Oslo' });
    const collected = collectSkillEvents(slow.handle(context));
    await new Promise((resolve) => setImmediate(resolve));
    context.abortController.abort();
    const events = await collected;
    expectStates(events, ['TASK_STATE_WORKING']);
    expect(artifactTextsOf(events)).toEqual([]);
  });
});
