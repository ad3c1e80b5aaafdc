import 'reflect-metadata';
import { Test, type TestingModule } from '@nestjs/testing';
import { artifactTextsOf, expectStates, TestA2aClient } from '../../../libs/a2a/src/testing.js';
import { TravelModule } from './travel.module.js';
import { forecastFor } from './weather.skill.js';

/** The whole travel agent in-process (router, skills, engine), driven by the testing kit's client. */
describe('TravelModule with TestA2aClient', () => {
  let moduleRef: TestingModule;
  let client: TestA2aClient;

  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [TravelModule.forRoot({ baseUrl: 'http://travel.example.com', stepDelayMs: 0 })],
    })
      .setLogger(false as never)
      .compile();
    await moduleRef.init();
    client = TestA2aClient.for(moduleRef, { principal: 'traveller' });
  });
  afterAll(() => moduleRef.close());

  it('routes a weather question to the weather skill and streams its forecast', async () => {
    const frames = await client.streamAll('What is the weather in Tokyo?');
    expectStates(frames, ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    const [summary] = artifactTextsOf(frames);
    expect(summary).toMatch(/^Tokyo tomorrow: /);
    const { task } = await client.sendForTask('forecast for Tokyo');
    expect(task.artifacts?.[0].parts[1]).toEqual({ data: forecastFor('Tokyo'), mediaType: 'application/json' });
  });

  it('asks which city, then answers the follow-up on the same task', async () => {
    const { task } = await client.sendForTask('Is it going to rain?');
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const { task: answered } = await client.sendForTask('Lisbon', { taskId: task.id });
    expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactTextsOf(answered)).toEqual([expect.stringMatching(/^Lisbon tomorrow: /)]);
    expect((await client.listTasks()).tasks.map((t) => t.id)).toContain(task.id);
    await expect(client.as('someone-else').getTask(task.id)).rejects.toMatchObject({ kind: 'TaskNotFound' });
  });
});
