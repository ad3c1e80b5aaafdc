import 'reflect-metadata';
import { Injectable, Module, UnauthorizedException, type CanActivate, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { A2aModule, A2aSkillHandler, AgentSkill, complete, type SkillContext } from '../../../libs/a2a/src/index.js';
import { startTestApp, createTestApplication } from '../../fixtures/test-app.js';

@AgentSkill({ id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['echo'] })
class EchoSkill extends A2aSkillHandler {
  handle(context: SkillContext) {
    return [complete(context.text)];
  }
}

@Module({
  imports: [
    A2aModule.forRoot({
      card: { name: 'Echo agent', description: 'Echoes text' },
      baseUrl: 'https://agent.example.com',
    }),
  ],
  providers: [EchoSkill],
})
class AppModule {}

describe('AgentCard (spec §8.1, §8.3.1, §8.6)', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await startTestApp(AppModule));
  });
  afterAll(() => app.close());

  it('serves the card built from options, bindings and skills', async () => {
    const res = await fetch(`${url}/.well-known/agent-card.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const card = await res.json();
    expect(card).toEqual({
      name: 'Echo agent',
      description: 'Echoes text',
      version: '1.0.0',
      supportedInterfaces: [
        { url: 'https://agent.example.com/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: 'https://agent.example.com/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ],
      capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['echo'] }],
    });
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const first = await fetch(`${url}/.well-known/agent-card.json`);
    const etag = first.headers.get('etag')!;
    expect(etag).toBeTruthy();
    const second = await fetch(`${url}/.well-known/agent-card.json`, { headers: { 'If-None-Match': etag } });
    expect(second.status).toBe(304);
  });
});

/** The app's own API-key guard for everything it serves. */
@Injectable()
class DenyAllGuard implements CanActivate {
  canActivate(): boolean {
    throw new UnauthorizedException();
  }
}

describe('the card below a global prefix and behind an app-wide guard', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    @Module({
      imports: [
        A2aModule.forRoot({
          card: { name: 'Prefixed', description: 'Lives under /api' },
          baseUrl: 'https://agent.example.com',
        }),
      ],
      providers: [EchoSkill, { provide: APP_GUARD, useClass: DenyAllGuard }],
    })
    class PrefixedModule {}
    const moduleRef = await Test.createTestingModule({ imports: [PrefixedModule] }).compile();
    app = createTestApplication(moduleRef);
    app.setGlobalPrefix('/api/');
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(() => app.close());

  it('stays at the well-known URI of the origin (RFC 8615), public, with the prefix in its interface URLs', async () => {
    const res = await fetch(`${url}/.well-known/agent-card.json`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { supportedInterfaces: unknown }).supportedInterfaces).toEqual([
      { url: 'https://agent.example.com/api/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'https://agent.example.com/api/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
    expect((await fetch(`${url}/api/.well-known/agent-card.json`)).status).toBe(404);
  });

  it('while the bindings, under the prefix, stay behind the guard', async () => {
    const res = await fetch(`${url}/api/a2a/rest/tasks/t-1`);
    expect(res.status).toBe(401);
  });
});
