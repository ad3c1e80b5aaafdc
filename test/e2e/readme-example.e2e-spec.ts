import 'reflect-metadata';
import { Module, type INestApplication } from '@nestjs/common';
import { A2aModule, A2aSkillHandler, AgentSkill, artifact, complete, working, type SkillContext } from '../../libs/a2a/src/index.js';
import { startTestApp } from './test-app.js';

// The README's "A skill in 25 lines", verbatim but for the import path: if this breaks, the README is wrong.
@AgentSkill({ id: 'shout', name: 'Shout', description: 'Repeats your text in capitals', tags: ['text'] })
export class ShoutSkill extends A2aSkillHandler {
  async *handle(context: SkillContext) {
    yield working('Taking a deep breath…');
    yield artifact(context.text.toUpperCase(), { name: 'shout' });
    yield complete();
  }
}

@Module({
  imports: [A2aModule.forRoot({ card: { name: 'Shouter', description: 'Shouts back' }, baseUrl: 'http://localhost:3000' })],
  providers: [ShoutSkill],
})
export class AppModule {}

describe('the README example', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await startTestApp(AppModule));
  });
  afterAll(() => app.close());

  it('answers the README curl call with a completed task', async () => {
    const res = await fetch(`${url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } }),
    });
    const body = (await res.json()) as { task: { status: { state: string }; artifacts: Array<{ name: string; parts: Array<{ text: string }> }> } };
    expect(body.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.task.artifacts[0]).toMatchObject({ name: 'shout', parts: [{ text: 'HELLO' }] });
  });
});
