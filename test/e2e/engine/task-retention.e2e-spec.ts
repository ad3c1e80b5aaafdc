import 'reflect-metadata';
import { Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  SKILL_ID_METADATA_KEY,
  artifact,
  complete,
  working,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { createTestApplication } from '../../fixtures/test-app.js';

/** `limits.maxTasks` and `limits.terminalTaskTtlMs` reach the default store, and the engine copes with what it forgets. */

let release: () => void = () => undefined;

@AgentSkill({ id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['echo'], default: true })
class EchoSkill extends A2aSkillHandler {
  handle(context: SkillContext): SkillEvent[] {
    return [working(), artifact(context.text, { name: 'echo' }), complete()];
  }
}

@AgentSkill({ id: 'held', name: 'Held', description: 'Works until the test releases it', tags: ['held'] })
class HeldSkill extends A2aSkillHandler {
  async *handle(): AsyncIterable<SkillEvent> {
    yield working();
    await new Promise<void>((resolve) => (release = resolve));
    yield complete();
  }
}

async function boot(limits: {
  maxTasks?: number;
  terminalTaskTtlMs?: number;
}): Promise<{ app: INestApplication; rpc: (method: string, params: unknown) => Promise<any> }> {
  @Module({
    imports: [
      A2aModule.forRoot({
        card: { name: 'Retention', description: 'Retention tests' },
        limits,
        security: { anonymousCallers: 'shared' },
      }),
    ],
    providers: [EchoSkill, HeldSkill],
  })
  class AppModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = createTestApplication(moduleRef);
  await app.listen(0, '127.0.0.1');
  const url = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/a2a/jsonrpc`;
  let id = 0;
  const rpc = async (method: string, params: unknown) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    return res.json();
  };
  return { app, rpc };
}

const message = (text: string, skill?: string) => ({
  messageId: `m-${text}`,
  role: 'ROLE_USER',
  parts: [{ text }],
  ...(skill ? { metadata: { [SKILL_ID_METADATA_KEY]: skill } } : {}),
});

describe('task retention of the default store', () => {
  it('forgets the oldest terminal task beyond limits.maxTasks', async () => {
    const { app, rpc } = await boot({ maxTasks: 2 });
    try {
      const ids: string[] = [];
      for (const text of ['one', 'two', 'three'])
        ids.push((await rpc('SendMessage', { message: message(text) })).result.task.id);
      expect((await rpc('GetTask', { id: ids[0] })).error.code).toBe(-32001);
      expect((await rpc('GetTask', { id: ids[1] })).result.id).toBe(ids[1]);
      expect((await rpc('ListTasks', {})).result.totalSize).toBe(2);
    } finally {
      await app.close();
    }
  });

  it('forgets a terminal task once limits.terminalTaskTtlMs has passed', async () => {
    const { app, rpc } = await boot({ terminalTaskTtlMs: 300 });
    try {
      const id = (await rpc('SendMessage', { message: message('short-lived') })).result.task.id;
      expect((await rpc('GetTask', { id })).result.id).toBe(id);
      await new Promise((resolve) => setTimeout(resolve, 350));
      expect((await rpc('GetTask', { id })).error.code).toBe(-32001);
    } finally {
      await app.close();
    }
  });

  it('ends a run whose task was forgotten while it worked: its caller gets an answer, not a hang', async () => {
    const { app, rpc } = await boot({ maxTasks: 1 });
    try {
      const held = rpc('SendMessage', { message: message('hold', 'held') });
      // Once the held task is WORKING, and the only one, a new task pushes it out.
      for (let tries = 0; (await rpc('ListTasks', {})).result.totalSize === 0 && tries < 200; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // Created at its first event (returnImmediately), so WORKING: the store has no terminal task to forget first.
      await rpc('SendMessage', { message: message('newer'), configuration: { returnImmediately: true } });
      release();
      const answer = await held;
      // Answers come from the store, which no longer has the task: the caller is told so.
      expect(answer.error.code).toBe(-32001);
    } finally {
      await app.close();
    }
  });
});
