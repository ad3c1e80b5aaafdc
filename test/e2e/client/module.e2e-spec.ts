import 'reflect-metadata';
import { Inject, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  A2aClient,
  A2aClientMessages,
  A2aClientModule,
  A2aClientOptionsError,
  type A2aClientModuleOptions,
  type Task,
} from '../../../libs/a2a/src/client.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { LOOPBACK } from './fixtures/client-targets.js';

/** `A2aClientModule.register` / `registerAsync` and the injectable `A2aClient`. */
let agent: RunningAgent;
beforeAll(async () => {
  agent = await startConformanceAgent({ push: false });
});
afterAll(() => agent?.close());

const options = (): A2aClientModuleOptions => ({
  agents: { conformance: { cardUrl: agent.url, preferredTransports: ['HTTP+JSON'] } },
  defaults: { network: LOOPBACK, timeoutMs: 5000, preferredTransports: ['JSONRPC'] },
});

@Injectable()
class Booker {
  constructor(@Inject(A2aClient) private readonly a2a: A2aClient) {}

  async echo(text: string): Promise<Task> {
    return (await this.a2a.agent('conformance').send(`echo ${text}`)) as Task;
  }
}

it("register: an injectable A2aClient whose agents are the options', defaults underneath", async () => {
  @Module({ imports: [A2aClientModule.register(options())], providers: [Booker] })
  class AppModule {}
  const app = await (await Test.createTestingModule({ imports: [AppModule] }).compile()).init();
  const booker = app.get(Booker);
  expect((await booker.echo('from a service')).artifacts?.[0].parts[0].text).toBe('from a service');
  const a2a = app.get(A2aClient);
  expect(a2a.agent('conformance')).toBe(a2a.agent('conformance'));
  expect(a2a.agentNames).toEqual(['conformance']);
  expect(() => a2a.agent('flights')).toThrow(
    new A2aClientOptionsError(A2aClientMessages.unknownAgent('flights', ['conformance'])),
  );
  // for(url): the defaults apply (JSONRPC, the loopback allowlist); the same URL gives the same client.
  const adHoc = a2a.for(agent.url);
  expect(adHoc).toBe(a2a.for(`${agent.url}/.well-known/agent-card.json`));
  expect(await adHoc.send('echo ad hoc')).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
  await app.close();
  // Shut down with the app: its clients are closed.
  await expect(adHoc.send('echo late')).rejects.toMatchObject({ kind: 'Aborted' });
});

it('registerAsync: options from a factory with injected dependencies', async () => {
  const CONFIG = Symbol('CONFIG');
  @Module({ providers: [{ provide: CONFIG, useValue: { url: agent.url } }], exports: [CONFIG] })
  class ConfigModule {}
  @Module({
    imports: [
      A2aClientModule.registerAsync({
        imports: [ConfigModule],
        inject: [CONFIG],
        useFactory: (config: { url: string }) => ({
          agents: { conformance: { cardUrl: config.url } },
          defaults: { network: LOOPBACK },
        }),
        isGlobal: true,
      }),
    ],
  })
  class AppModule {}
  const app = await (await Test.createTestingModule({ imports: [AppModule] }).compile()).init();
  expect(await app.get(A2aClient).agent('conformance').send('echo async')).toMatchObject({
    status: { state: 'TASK_STATE_COMPLETED' },
  });
  await app.close();
});
