import { Module } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { A2aModule, A2aSkillHandler, AgentSkill, requireInput, type SkillEvent } from '../../../libs/a2a/src/index.js';
import { ProbeSkill } from '../../fixtures/grpc-probe.fixture.js';
import { startTestApp } from '../../fixtures/test-app.js';

/**
 * Graceful shutdown (issue 10, item 7): while the app closes, new messages are refused, running skills get the grace
 * period, what still runs after it is FAILED with a reason, and every open stream and blocking caller gets an answer.
 */
@AgentSkill({ id: 'ask', name: 'Ask', description: 'Asks a question', tags: ['test'] })
class AskSkill extends A2aSkillHandler {
  async *handle(): AsyncIterable<SkillEvent> {
    yield requireInput('Which one?');
  }
}

@Module({
  imports: [
    A2aModule.forRoot({
      card: { name: 'Closing', description: 'Shuts down gracefully' },
      shutdownGraceMs: 500,
      security: { allowAnonymous: true, anonymousCallers: 'shared' },
    }),
  ],
  providers: [ProbeSkill, AskSkill],
})
class ClosingModule {}

const message = (text: string, skillId = 'probe') => ({
  messageId: `${text}-${Math.random()}`,
  role: 'ROLE_USER',
  parts: [{ text }],
  metadata: { 'nestjs-a2a/skillId': skillId },
});

it('drains: refuses new messages, lets short skills finish, fails the long ones, and answers every caller and stream', async () => {
  const { app, url } = await startTestApp(ClosingModule);
  const rpc = (method: string, params: object) =>
    fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
  const sse = (path: string, body?: object) =>
    fetch(`${url}/a2a/rest${path}`, {
      method: body ? 'POST' : 'GET',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    }).then((res) => res.text());

  const asked = (await (await rpc('SendMessage', { message: message('which', 'ask') })).json()) as {
    result: { task: { id: string } };
  };
  const blocking = rpc('SendMessage', { message: message('slow 60000') }).then(
    (res) =>
      res.json() as Promise<{
        result: { task: { status: { state: string; message?: { parts: Array<{ text: string }> } } } };
      }>,
  );
  const short = sse('/message:stream', { message: message('slow 200') });
  const subscribed = sse(`/tasks/${asked.result.task.id}:subscribe`);
  // Both slow runs are under way (their tasks WORKING) before the app starts closing, however loaded the machine.
  for (let tries = 0; tries < 300; tries++) {
    const listed = (await (await rpc('ListTasks', { status: 'TASK_STATE_WORKING' })).json()) as {
      result: { totalSize: number };
    };
    if (listed.result.totalSize >= 2) break;
    await sleep(10);
  }
  await sleep(20);

  const started = Date.now();
  const closing = app.close();
  await sleep(50);
  const refused = await rpc('SendMessage', { message: message('echo late') });
  expect(refused.status).toBe(503);
  expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(-31503);

  await closing;
  expect(Date.now() - started).toBeLessThan(3000);
  const long = (await blocking).result.task;
  expect(long.status.state).toBe('TASK_STATE_FAILED');
  expect(long.status.message?.parts[0].text).toContain('shut down');
  expect(await short).toContain('TASK_STATE_COMPLETED');
  const ended = await subscribed;
  expect(ended).toContain('TASK_STATE_INPUT_REQUIRED');
  expect(ended).toContain('event: error');
  expect(ended).toContain('shutting down');
});
