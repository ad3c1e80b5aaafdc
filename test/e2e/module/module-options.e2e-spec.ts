import 'reflect-metadata';
import { Injectable, Module, type INestApplication } from '@nestjs/common';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  artifact,
  complete,
  type SkillContext,
  type SkillEvent,
  type AgentCard,
  type Task,
} from '../../../libs/a2a/src/index.js';
import { A2A_TASK_STORE, InMemoryTaskStore, type TaskStore } from '../../../libs/a2a/src/store.js';
import { startTestApp } from '../../fixtures/test-app.js';

type JsonRpcAnswer = { result: { task: Task }; error: { code: number } };

/** Answers with what the call context carried, so the test can see the binding's parsing through the skill. */
@AgentSkill({ id: 'context', name: 'Context', description: 'Reports its call context', tags: ['test'] })
class ContextSkill extends A2aSkillHandler {
  handle(context: SkillContext): SkillEvent[] {
    const { binding, version, extensions, tenant } = context.call;
    return [artifact({ data: { binding, version, extensions: [...extensions], tenant } }), complete()];
  }
}

@Injectable()
class AgentSettings {
  readonly name = 'Configured agent';
  readonly store = new InMemoryTaskStore();
}

@Module({ providers: [AgentSettings], exports: [AgentSettings] })
class SettingsModule {}

@Module({
  imports: [
    A2aModule.forRootAsync({
      imports: [SettingsModule],
      inject: [AgentSettings],
      useFactory: (settings: AgentSettings) => ({
        card: { name: settings.name, description: 'Options from a factory' },
        baseUrl: 'https://agents.example.com/',
        taskStore: settings.store,
        extensions: [{ uri: 'https://ext.example/a' }, { uri: 'https://ext.example/b' }],
      }),
      // Static: which bindings exist and where.
      jsonRpc: { path: '/rpc' },
      rest: false,
    }),
  ],
  providers: [ContextSkill],
})
class AppModule {}

describe('A2aModule.forRootAsync, binding mounts and service parameters (spec §3.2.6, §8.3.1, §4.6)', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await startTestApp(AppModule));
  });
  afterAll(() => app.close());

  const rpc = (headers: Record<string, string> = {}, tenant?: string) =>
    fetch(`${url}/rpc`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          ...(tenant ? { tenant } : {}),
          message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
        },
      }),
    }).then((res) => res.json() as Promise<JsonRpcAnswer>);

  it('builds the card from factory options and lists only the mounted binding', async () => {
    const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as AgentCard;
    expect(card.name).toBe('Configured agent');
    expect(card.supportedInterfaces).toEqual([
      { url: 'https://agents.example.com/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ]);
  });

  it('mounts no HTTP+JSON routes when rest is false', async () => {
    const res = await fetch(`${url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(404);
  });

  it('stores tasks in the store the factory supplied', async () => {
    const body = await rpc();
    const supplied = app.get<TaskStore>(A2A_TASK_STORE);
    expect(supplied).toBe(app.get(AgentSettings).store);
    const stored = await supplied.get(body.result.task.id, { tenant: '', owner: 'anonymous' });
    expect(stored?.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('hands the skill the version, the activated extensions and the tenant (spec §3.2.6, §3.6, §4.6, §8.3.2)', async () => {
    const body = await rpc(
      { 'A2A-Version': '1.0.7', 'A2A-Extensions': 'https://ext.example/a, https://ext.example/b' },
      'acme',
    );
    expect(body.result.task.artifacts![0].parts[0].data).toEqual({
      binding: 'JSONRPC',
      version: '1.0',
      extensions: ['https://ext.example/a', 'https://ext.example/b'],
      tenant: 'acme',
    });
  });

  it('reads the version from the A2A-Version query parameter too (spec §3.6.1)', async () => {
    const res = await fetch(`${url}/rpc?A2A-Version=0.3`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'GetTask', params: { id: 'x' } }),
    });
    expect(((await res.json()) as JsonRpcAnswer).error.code).toBe(-32009);
  });
});
