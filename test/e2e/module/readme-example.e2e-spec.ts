import 'reflect-metadata';
import { Module, type INestApplication } from '@nestjs/common';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  working,
  type SkillContext,
} from '../../../libs/a2a/src/index.js';
import { startTestApp } from '../../fixtures/test-app.js';

// The README's "A skill in 25 lines", verbatim but for the import path: if this breaks, the README is wrong.
export class ShoutInput {
  @IsString() @MaxLength(1000) text!: string;
  @IsOptional() @IsInt() @Min(1) @Max(3) times: number = 1;
}

// Its input: a data part {"text": "hi", "times": 2}, or plain text, which parseText turns into one.
@AgentSkill({
  id: 'shout',
  name: 'Shout',
  description: 'Repeats your text in capitals',
  tags: ['text'],
  input: ShoutInput,
  parseText: (text) => ({ text }),
})
export class ShoutSkill extends A2aSkillHandler<ShoutInput> {
  async *handle({ input }: SkillContext<ShoutInput>) {
    yield working('Taking a deep breath…');
    yield artifact(Array(input.times).fill(input.text.toUpperCase()).join(' '), { name: 'shout' });
    yield complete();
  }
}

@Module({
  imports: [
    A2aModule.forRoot({ card: { name: 'Shouter', description: 'Shouts back' }, baseUrl: 'http://localhost:3000' }),
  ],
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
    const body = (await res.json()) as {
      task: { status: { state: string }; artifacts: Array<{ name: string; parts: Array<{ text: string }> }> };
    };
    expect(body.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.task.artifacts[0]).toMatchObject({ name: 'shout', parts: [{ text: 'HELLO' }] });
  });

  it('takes its typed input as a data part, and refuses an invalid one with the field that is wrong', async () => {
    const send = async (data: unknown) => {
      const res = await fetch(`${url}/a2a/rest/message:send`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          message: { messageId: `m-${JSON.stringify(data)}`, role: 'ROLE_USER', parts: [{ data }] },
        }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const ok = await send({ text: 'hi', times: 2 });
    expect(ok.body.task.artifacts[0].parts).toEqual([{ text: 'HI HI' }]);
    const refused = await send({ text: 'hi', times: 4 });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[1].fieldViolations).toEqual([
      { field: 'times', description: 'times must not be greater than 3' },
    ]);
  });
});
