import 'reflect-metadata';
import {
  Controller,
  Injectable,
  Module,
  Post,
  type CallHandler,
  type CanActivate,
  type ExecutionContext,
  type INestApplication,
  type NestInterceptor,
  type PipeTransform,
  UseGuards,
  type Provider,
} from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import http from 'node:http';
import type express from 'express';
import type { Observable } from 'rxjs';
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
import { DirectHttpDispatcher } from '../../../libs/a2a/src/bindings/http/direct/direct-http.dispatcher.js';

/**
 * The direct dispatcher (bindings/http/direct/direct-http.dispatcher.ts) serves the HTTP bindings without Express and Nest
 * when nothing of the app would run on them. These tests check when it does and when it leaves requests to Express,
 * and that both paths answer the same requests the same way: status, media type, X-Powered-By and body, for successes,
 * protocol errors, body-parser errors, odd paths and streams.
 */

@AgentSkill({ id: 'echo', name: 'Echo', description: 'Echoes text', tags: ['echo'], default: true })
class EchoSkill extends A2aSkillHandler {
  handle(context: SkillContext): SkillEvent[] {
    return [working(), artifact(context.text, { artifactId: 'a-1', name: 'echo' }), complete('Done.')];
  }
}

@AgentSkill({ id: 'chunks', name: 'Chunks', description: 'Streams three chunks', tags: ['stream'] })
class ChunksSkill extends A2aSkillHandler {
  async *handle(): AsyncIterable<SkillEvent> {
    yield working();
    for (let i = 1; i <= 3; i++) yield artifact(`chunk ${i}`, { artifactId: 'a-1', append: i > 1, lastChunk: i === 3 });
    yield complete();
  }
}

/** A guard written for Express: `req.get()` exists only on Express's request prototype. */
@Injectable()
class NeedsWhoGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    return context.switchToHttp().getRequest<express.Request>().get('x-who') !== undefined;
  }
}

@AgentSkill({ id: 'guarded', name: 'Guarded', description: 'Needs x-who', tags: ['test'] })
@UseGuards(NeedsWhoGuard)
class GuardedSkill extends A2aSkillHandler {
  handle(): SkillEvent[] {
    return [complete('ok')];
  }
}

@Injectable()
class AllowAll implements CanActivate {
  static calls = 0;
  canActivate(): boolean {
    AllowAll.calls++;
    return true;
  }
}

@Injectable()
class Stamp implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    context.switchToHttp().getResponse<http.ServerResponse>().setHeader('X-Stamp', 'yes');
    return next.handle();
  }
}

@Injectable()
class PassThrough implements PipeTransform {
  transform(value: unknown): unknown {
    return value;
  }
}

/** An app route on the JSON-RPC path, registered (in the root module) before the A2A ones. */
@Controller('a2a/jsonrpc')
class ShadowController {
  @Post()
  shadow(): { shadowed: true } {
    return { shadowed: true };
  }
}

interface Booted {
  app: INestApplication;
  port: number;
  dispatcher: DirectHttpDispatcher;
}

async function boot(
  setup: {
    directDispatch?: boolean;
    providers?: Provider[];
    controllers?: any[];
    configure?: (app: INestApplication) => void;
  } = {},
): Promise<Booted> {
  @Module({
    imports: [
      A2aModule.forRoot({
        card: { name: 'Direct', description: 'Direct dispatch tests' },
        directDispatch: setup.directDispatch,
      }),
    ],
    controllers: setup.controllers ?? [],
    providers: [EchoSkill, ChunksSkill, ...(setup.providers ?? [])],
  })
  class AppModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  setup.configure?.(app);
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  return { app, port, dispatcher: app.get(DirectHttpDispatcher) };
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Sends A2A-Version 1.0 unless `headers` says otherwise (`undefined`: no such header). */
function send(
  port: number,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string | undefined> = {},
): Promise<Answer> {
  const all = Object.fromEntries(
    Object.entries({ 'a2a-version': '1.0', ...headers }).filter(([, value]) => value !== undefined),
  ) as Record<string, string>;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: all }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const rpc = (method: string, params: unknown, id: unknown = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });
const message = (text: string, skill?: string) => ({
  messageId: 'm-1',
  role: 'ROLE_USER',
  parts: [{ text }],
  ...(skill ? { metadata: { [SKILL_ID_METADATA_KEY]: skill } } : {}),
});

/** Ids and timestamps differ between two apps; everything else must not. */
function normalized(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>')
    .replace(/"pageToken":"[^"]*"|"nextPageToken":"[^"]+"/g, '<token>');
}

/** One request of the equivalence run; `taskId` is a completed task of the app under test. */
interface Case {
  name: string;
  request(taskId: string): [method: string, path: string, body?: string, headers?: Record<string, string | undefined>];
}

const CASES: Case[] = [
  {
    name: 'JSON-RPC SendMessage',
    request: () => ['POST', '/a2a/jsonrpc', rpc('SendMessage', { message: message('hi') }), JSON_HEADERS],
  },
  {
    name: 'JSON-RPC SendMessage as application/a2a+json',
    request: () => [
      'POST',
      '/a2a/jsonrpc',
      rpc('SendMessage', { message: message('typed') }, 'x'),
      { 'content-type': 'application/a2a+json' },
    ],
  },
  {
    name: 'JSON-RPC GetTask',
    request: (id) => ['POST', '/a2a/jsonrpc', rpc('GetTask', { id, historyLength: 1 }), JSON_HEADERS],
  },
  {
    name: 'JSON-RPC ListTasks',
    request: () => ['POST', '/a2a/jsonrpc', rpc('ListTasks', { pageSize: 1 }), JSON_HEADERS],
  },
  {
    name: 'JSON-RPC unknown task',
    request: () => ['POST', '/a2a/jsonrpc', rpc('GetTask', { id: 'nope' }), JSON_HEADERS],
  },
  { name: 'JSON-RPC unknown method', request: () => ['POST', '/a2a/jsonrpc', rpc('message/send', {}), JSON_HEADERS] },
  { name: 'JSON-RPC batch', request: () => ['POST', '/a2a/jsonrpc', `[${rpc('GetTask', { id: 'x' })}]`, JSON_HEADERS] },
  {
    name: 'JSON-RPC invalid params',
    request: () => ['POST', '/a2a/jsonrpc', rpc('SendMessage', { message: { parts: 'no' } }), JSON_HEADERS],
  },
  {
    name: 'JSON-RPC malformed application/json',
    request: () => ['POST', '/a2a/jsonrpc', '{"jsonrpc": ', JSON_HEADERS],
  },
  {
    name: 'JSON-RPC malformed application/a2a+json',
    request: () => ['POST', '/a2a/jsonrpc', '{"jsonrpc": ', { 'content-type': 'application/a2a+json' }],
  },
  {
    name: 'JSON-RPC application/json beyond the parser limit',
    request: () => ['POST', '/a2a/jsonrpc', `{"pad":"${'x'.repeat(120_000)}"}`, JSON_HEADERS],
  },
  {
    name: 'JSON-RPC without a body',
    request: () => ['POST', '/a2a/jsonrpc', '', { 'content-type': 'application/a2a+json' }],
  },
  {
    name: 'JSON-RPC text/plain body',
    request: () => ['POST', '/a2a/jsonrpc', 'hello', { 'content-type': 'text/plain' }],
  },
  {
    name: 'JSON-RPC SendMessage as text/plain',
    request: () => [
      'POST',
      '/a2a/jsonrpc',
      rpc('SendMessage', { message: message('plain') }),
      { 'content-type': 'text/plain' },
    ],
  },
  {
    name: 'JSON-RPC SendMessage without a Content-Type',
    request: () => ['POST', '/a2a/jsonrpc', rpc('SendMessage', { message: message('untyped') })],
  },
  {
    name: 'JSON-RPC old version header',
    request: () => ['POST', '/a2a/jsonrpc', rpc('GetTask', { id: 'x' }), { ...JSON_HEADERS, 'a2a-version': '0.3' }],
  },
  {
    name: 'JSON-RPC version in the query',
    request: () => [
      'POST',
      '/a2a/jsonrpc?A2A-Version=0.3',
      rpc('GetTask', { id: 'x' }),
      { ...JSON_HEADERS, 'a2a-version': undefined },
    ],
  },
  {
    name: 'JSON-RPC path in other case, trailing slash',
    request: () => ['POST', '/A2A/JsonRpc/', rpc('GetTask', { id: 'x' }), JSON_HEADERS],
  },
  { name: 'JSON-RPC GET', request: () => ['GET', '/a2a/jsonrpc'] },
  {
    name: 'REST SendMessage',
    request: () => [
      'POST',
      '/a2a/rest/message:send',
      JSON.stringify({ message: message('rest') }),
      { 'content-type': 'application/a2a+json' },
    ],
  },
  {
    name: 'REST SendMessage as a form',
    request: () => [
      'POST',
      '/a2a/rest/message:send',
      'message=x',
      { 'content-type': 'application/x-www-form-urlencoded' },
    ],
  },
  {
    name: 'REST SendMessage as a form too large for the urlencoded parser',
    request: () => [
      'POST',
      '/a2a/rest/message:send',
      `message[parts][0][text]=${'x'.repeat(120_000)}`,
      { 'content-type': 'application/x-www-form-urlencoded' },
    ],
  },
  {
    name: 'REST SendMessage as multipart/form-data',
    request: () => [
      'POST',
      '/a2a/rest/message:send',
      '--b\r\nContent-Disposition: form-data; name="message"\r\n\r\nx\r\n--b--\r\n',
      { 'content-type': 'multipart/form-data; boundary=b' },
    ],
  },
  { name: 'REST GetTask', request: (id) => ['GET', `/a2a/rest/tasks/${id}?historyLength=0`] },
  { name: 'REST GetTask with a bad query', request: (id) => ['GET', `/a2a/rest/tasks/${id}?historyLength=abc`] },
  { name: 'REST GetTask of an unknown task', request: () => ['GET', '/a2a/rest/tasks/nope'] },
  { name: 'REST GetTask with an encoded id', request: () => ['GET', '/a2a/rest/tasks/a%2Fb'] },
  { name: 'REST GetTask with an undecodable id', request: () => ['GET', '/a2a/rest/tasks/%E0%A4%A'] },
  { name: 'REST HEAD of a task', request: (id) => ['HEAD', `/a2a/rest/tasks/${id}`] },
  { name: 'REST ListTasks', request: () => ['GET', '/a2a/rest/tasks?pageSize=1&includeArtifacts=true'] },
  { name: 'REST ListTasks with a repeated parameter', request: () => ['GET', '/a2a/rest/tasks?pageSize=1&pageSize=2'] },
  {
    name: 'REST tenant route',
    request: () => [
      'POST',
      '/a2a/rest/acme/message:send',
      JSON.stringify({ tenant: 'other', message: message('t') }),
      JSON_HEADERS,
    ],
  },
  {
    name: 'REST CancelTask of a completed task',
    request: (id) => ['POST', `/a2a/rest/tasks/${id}:cancel`, undefined, JSON_HEADERS],
  },
  { name: 'REST CancelTask without a Content-Type', request: (id) => ['POST', `/a2a/rest/tasks/${id}:cancel`] },
  {
    name: 'REST push config',
    request: (id) => ['POST', `/a2a/rest/tasks/${id}/pushNotificationConfigs`, '{}', JSON_HEADERS],
  },
  { name: 'REST extended card', request: () => ['GET', '/a2a/rest/extendedAgentCard'] },
  { name: 'REST subscribe to a completed task', request: (id) => ['GET', `/a2a/rest/tasks/${id}:subscribe`] },
  { name: 'REST unknown route', request: () => ['GET', '/a2a/rest/nothing/here/at/all'] },
  {
    name: 'JSON-RPC stream',
    request: () => [
      'POST',
      '/a2a/jsonrpc',
      rpc('SendStreamingMessage', { message: message('go', 'chunks') }, 's'),
      { ...JSON_HEADERS, accept: 'text/event-stream' },
    ],
  },
  {
    name: 'REST stream',
    request: () => [
      'POST',
      '/a2a/rest/message:stream',
      JSON.stringify({ message: message('go', 'chunks') }),
      { ...JSON_HEADERS, accept: 'text/event-stream' },
    ],
  },
  { name: 'agent card', request: () => ['GET', '/.well-known/agent-card.json'] },
];

async function completedTaskId(port: number): Promise<string> {
  const answer = await send(
    port,
    'POST',
    '/a2a/jsonrpc',
    rpc('SendMessage', { message: message('first') }),
    JSON_HEADERS,
  );
  return JSON.parse(answer.body).result.task.id as string;
}

/** The app the bench's second row measures: a global guard, a global interceptor and CORS. */
const WITH_PIPELINE: Parameters<typeof boot>[0] = {
  providers: [
    { provide: APP_GUARD, useClass: AllowAll },
    { provide: APP_INTERCEPTOR, useClass: Stamp },
  ],
  configure: (app) => app.enableCors(),
};

describe('direct dispatch of the HTTP bindings', () => {
  describe.each([
    ['a bare app', {}],
    ['an app with a global guard, a global interceptor and CORS', WITH_PIPELINE],
  ])('answers exactly as through Express, for %s', (_app, setup) => {
    let direct: Booted;
    let piped: Booted;
    let directTask: string;
    let pipedTask: string;

    beforeAll(async () => {
      direct = await boot(setup);
      piped = await boot({ ...setup, directDispatch: false });
      directTask = await completedTaskId(direct.port);
      pipedTask = await completedTaskId(piped.port);
    });
    afterAll(async () => {
      await direct.app.close();
      await piped.app.close();
    });

    it('is on, and off when turned off', () => {
      expect(direct.dispatcher.active).toBe(true);
      expect(piped.dispatcher.active).toBe(false);
    });

    it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      const [viaDirect, viaNest] = await Promise.all([
        send(direct.port, ...c.request(directTask)),
        send(piped.port, ...c.request(pipedTask)),
      ]);
      const view = (answer: Answer) => ({
        status: answer.status,
        contentType: answer.headers['content-type'],
        poweredBy: answer.headers['x-powered-by'],
        stamp: answer.headers['x-stamp'],
        cors: answer.headers['access-control-allow-origin'],
        body: normalized(answer.body),
      });
      expect(view(viaDirect)).toEqual(view(viaNest));
    });

    it('writes the same headers on both paths: no ETag (API answers are not cached by validators)', async () => {
      const [viaDirect, viaExpress] = await Promise.all([
        send(direct.port, 'GET', `/a2a/rest/tasks/${directTask}`),
        send(piped.port, 'GET', `/a2a/rest/tasks/${pipedTask}`),
      ]);
      expect(viaDirect.headers.etag).toBeUndefined();
      expect(viaExpress.headers.etag).toBeUndefined();
    });
  });

  describe('serves directly, and runs the app’s pipeline there, when the app has', () => {
    const cases: Array<[string, Parameters<typeof boot>[0], (answer: Answer) => void]> = [
      [
        'a global guard (APP_GUARD)',
        { providers: [{ provide: APP_GUARD, useClass: AllowAll }] },
        () => expect(AllowAll.calls).toBeGreaterThan(0),
      ],
      [
        'a global interceptor (APP_INTERCEPTOR)',
        { providers: [{ provide: APP_INTERCEPTOR, useClass: Stamp }] },
        (answer) => expect(answer.headers['x-stamp']).toBe('yes'),
      ],
      ['a global pipe (APP_PIPE)', { providers: [{ provide: APP_PIPE, useClass: PassThrough }] }, () => undefined],
      [
        'app.useGlobalInterceptors()',
        { configure: (app) => app.useGlobalInterceptors(new Stamp()) },
        (answer) => expect(answer.headers['x-stamp']).toBe('yes'),
      ],
      [
        'app.enableCors()',
        { configure: (app) => app.enableCors({ origin: 'https://ui.example' }) },
        (answer) => expect(answer.headers['access-control-allow-origin']).toBe('https://ui.example'),
      ],
    ];

    it.each(cases)('%s', async (_name, setup, check) => {
      const booted = await boot(setup);
      try {
        const answer = await send(booted.port, 'POST', '/a2a/jsonrpc', rpc('GetTask', { id: 'x' }), {
          ...JSON_HEADERS,
          origin: 'https://ui.example',
        });
        check(answer);
        expect(JSON.parse(answer.body)).toMatchObject({ error: { code: -32001 } });
        expect(booted.dispatcher.active).toBe(true);
      } finally {
        await booted.app.close();
      }
    });
  });

  it('gives a skill’s own guard Express’s request API, with nothing else of the app on the routes', async () => {
    const booted = await boot({ providers: [GuardedSkill, NeedsWhoGuard] });
    try {
      const toGuarded = (headers: Record<string, string>) =>
        send(booted.port, 'POST', '/a2a/jsonrpc', rpc('SendMessage', { message: message('hi', 'guarded') }), {
          ...JSON_HEADERS,
          ...headers,
        });
      expect(JSON.parse((await toGuarded({ 'x-who': 'ada' })).body).result.task.status.state).toBe(
        'TASK_STATE_COMPLETED',
      );
      expect(JSON.parse((await toGuarded({})).body)).toMatchObject({ error: { code: -31403 } });
      expect(booted.dispatcher.active).toBe(true);
    } finally {
      await booted.app.close();
    }
  });

  describe('leaves requests to Express when a middleware of the app applies to them', () => {
    const cases: Array<[string, Parameters<typeof boot>[0], (answer: Answer) => void]> = [
      [
        'an Express middleware on every path',
        {
          configure: (app) =>
            app.use(
              (_req: unknown, res: http.ServerResponse, next: () => void) => (res.setHeader('X-Mw', '1'), next()),
            ),
        },
        (answer) => expect(answer.headers['x-mw']).toBe('1'),
      ],
      [
        'an app route registered first on the same path',
        { controllers: [ShadowController] },
        (answer) => expect(JSON.parse(answer.body)).toEqual({ shadowed: true }),
      ],
    ];

    it.each(cases)('%s', async (_name, setup, check) => {
      const booted = await boot(setup);
      try {
        const answer = await send(booted.port, 'POST', '/a2a/jsonrpc', rpc('GetTask', { id: 'x' }), JSON_HEADERS);
        check(answer);
      } finally {
        await booted.app.close();
      }
    });

    it('still serves directly with middleware on other paths only, per request', async () => {
      const booted = await boot({
        configure: (app) =>
          app.use(
            '/admin',
            (_req: unknown, res: http.ServerResponse, next: () => void) => (res.setHeader('X-Admin', '1'), next()),
          ),
      });
      try {
        const task = await completedTaskId(booted.port);
        expect(booted.dispatcher.active).toBe(true);
        expect((await send(booted.port, 'GET', `/a2a/rest/tasks/${task}`)).headers.etag).toBeUndefined();
      } finally {
        await booted.app.close();
      }
    });
  });

  it('refuses a POST by its Content-Type before a body parser of the app reads the body (Express’s own path parses it)', async () => {
    // The app's own urlencoded parser, counting the bodies it reads.
    const parsed = { direct: 0, piped: 0 };
    const counting = (path: keyof typeof parsed) => (app: INestApplication) =>
      (app as NestExpressApplication).useBodyParser('urlencoded', {
        extended: true,
        type: (req: http.IncomingMessage) => {
          const form = req.headers['content-type'] === 'application/x-www-form-urlencoded';
          if (form) parsed[path]++;
          return form;
        },
      });
    const direct = await boot({ configure: counting('direct') });
    const piped = await boot({ configure: counting('piped'), directDispatch: false });
    try {
      const form = 'message[messageId]=m&message[role]=ROLE_USER&message[parts][0][text]=hi';
      const [viaDirect, viaExpress] = await Promise.all(
        [direct, piped].map((booted) =>
          send(booted.port, 'POST', '/a2a/rest/message:send', form, {
            'content-type': 'application/x-www-form-urlencoded',
          }),
        ),
      );
      expect([viaDirect.status, viaExpress.status]).toEqual([415, 415]);
      expect(direct.dispatcher.active).toBe(true);
      expect(parsed).toEqual({ direct: 0, piped: 1 });
    } finally {
      await direct.app.close();
      await piped.app.close();
    }
  });

  it('finds the routes below a global prefix', async () => {
    const booted = await boot({ configure: (app) => app.setGlobalPrefix('api') });
    try {
      const answer = await send(
        booted.port,
        'POST',
        '/api/a2a/jsonrpc',
        rpc('SendMessage', { message: message('prefixed') }),
        JSON_HEADERS,
      );
      expect(JSON.parse(answer.body).result.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(booted.dispatcher.active).toBe(true);
      const task = JSON.parse(answer.body).result.task.id as string;
      const got = await send(booted.port, 'GET', `/api/a2a/rest/tasks/${task}`);
      expect(got.status).toBe(200);
      expect(got.headers.etag).toBeUndefined();
    } finally {
      await booted.app.close();
    }
  });
});
