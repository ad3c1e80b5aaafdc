import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { lastValueFrom, toArray } from 'rxjs';
import { quote, type Itinerary } from '../../../apps/travel-agent/src/book-flight.skill.js';
import { TravelModule } from '../../../apps/travel-agent/src/travel.module.js';
import type { TravelOptions } from '../../../apps/travel-agent/src/travel.options.js';
import { forecastFor } from '../../../apps/travel-agent/src/weather.skill.js';
import { BOOKING_SCOPE } from '../../../apps/travel-agent/src/travel.security.js';
import { IdentityProvider } from '../../fixtures/identity-provider.js';
import {
  ANONYMOUS_PRINCIPAL,
  type A2aCallContext,
  type Message,
  type StreamResponse,
  type Task,
} from '../../../libs/a2a/src/index.js';
import { A2A_EVENT_BUS, InProcessEventBus } from '../../../libs/a2a/src/store.js';
import { A2aEngine } from '../../../libs/a2a/src/engine/a2a.engine.js';
import { createTestApplication } from '../../fixtures/test-app.js';

const call: A2aCallContext = {
  principal: ANONYMOUS_PRINCIPAL,
  tenant: '',
  binding: 'JSONRPC',
  version: '1.0',
  extensions: [],
};

const text = (message: Message | undefined) => message?.parts.map((p) => p.text ?? '').join('') ?? '';

function userMessage(words: string, extra: Partial<Message> = {}): Message {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: words }], ...extra };
}

async function boot(options: Partial<TravelOptions> = {}): Promise<INestApplication> {
  const moduleRef = await Test.createTestingModule({
    imports: [TravelModule.forRoot({ baseUrl: 'http://travel.example.com', stepDelayMs: 0, ...options })],
  }).compile();
  const app = createTestApplication(moduleRef);
  await app.init();
  return app;
}

function shape(event: StreamResponse): string {
  if ('task' in event) return `task:${event.task.status.state}`;
  if ('message' in event) return `message:${text(event.message)}`;
  if ('statusUpdate' in event)
    return `status:${event.statusUpdate.status.state}:${text(event.statusUpdate.status.message)}`;
  return `artifact:${event.artifactUpdate.artifact.name}`;
}

describe('travel agent, through the engine', () => {
  let app: INestApplication;
  let engine: A2aEngine;

  beforeAll(async () => {
    app = await boot();
    engine = app.get(A2aEngine);
  });
  afterAll(() => app.close());

  async function ask(words: string, extra: Partial<Message> = {}): Promise<Task> {
    const result = await engine.sendMessage({ message: userMessage(words, extra) }, call);
    if (!('task' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
    return result.task;
  }

  const itineraryOf = (task: Task) => task.artifacts?.find((a) => a.name === 'itinerary')?.parts[0];

  it('books a fully specified flight in one message, with progress and an itinerary', async () => {
    const task = await ask('Book a flight from Paris to Tokyo on 2026-12-24');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const expected: Itinerary = quote('Paris', 'Tokyo', '2026-12-24');
    expect(itineraryOf(task)).toEqual({ data: expected, mediaType: 'application/json' });
    expect(task.history?.map(text)).toEqual([
      'Book a flight from Paris to Tokyo on 2026-12-24',
      'Searching flights from Paris to Tokyo on 2026-12-24…',
      'Comparing fares…',
      `Booking ${expected.airline} ${expected.flightNumber}…`,
      `Booked ${expected.airline} ${expected.flightNumber} from Paris to Tokyo on 2026-12-24, departing ${expected.departureTime}, for ${expected.price.amount} EUR.`,
    ]);
  });

  it('quotes deterministically: same route and date, same flight and price', () => {
    expect(quote('Paris', 'Tokyo', '2026-12-24')).toEqual(quote('Paris', 'Tokyo', '2026-12-24'));
    expect(quote('Paris', 'Tokyo', '2026-12-24')).toMatchObject({
      from: 'Paris',
      to: 'Tokyo',
      date: '2026-12-24',
      flightNumber: expect.stringMatching(/^[A-Z]{2}\d{3}$/),
      price: { amount: expect.any(Number), currency: 'EUR' },
    });
  });

  it('asks for a missing date, then streams the booking of the route given earlier', async () => {
    const asked = await ask('I need a flight from new york to san francisco please');
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(text(asked.status.message)).toContain('from New York to San Francisco');

    const events = await lastValueFrom(
      engine.sendStreamingMessage({ message: userMessage('2027-03-01', { taskId: asked.id }) }, call).pipe(toArray()),
    );
    expect(events.map(shape)).toEqual([
      'task:TASK_STATE_INPUT_REQUIRED',
      'status:TASK_STATE_WORKING:Searching flights from New York to San Francisco on 2027-03-01…',
      'status:TASK_STATE_WORKING:Comparing fares…',
      expect.stringMatching(/^status:TASK_STATE_WORKING:Booking /),
      'artifact:itinerary',
      expect.stringMatching(/^status:TASK_STATE_COMPLETED:Booked /),
    ]);
    const task = await engine.getTask({ id: asked.id }, call);
    expect(task.contextId).toBe(asked.contextId);
    expect(itineraryOf(task)?.data).toEqual(quote('New York', 'San Francisco', '2027-03-01'));
    expect(app.get<InProcessEventBus>(A2A_EVENT_BUS).watchedTaskCount).toBe(0);
  });

  it('asks for the route first, then the date, over three turns', async () => {
    const first = await ask('Book me a flight');
    expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(text(first.status.message)).toMatch(/from and to/);

    const second = await ask('from Lisbon to Berlin', { taskId: first.id });
    expect(second.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(text(second.status.message)).toContain('from Lisbon to Berlin');

    const third = await ask('on 2026-07-14', { taskId: first.id });
    expect(third.status.state).toBe('TASK_STATE_COMPLETED');
    expect(itineraryOf(third)?.data).toEqual(quote('Lisbon', 'Berlin', '2026-07-14'));
    expect(third.history?.filter((m) => m.role === 'ROLE_USER').map(text)).toEqual([
      'Book me a flight',
      'from Lisbon to Berlin',
      'on 2026-07-14',
    ]);
  });

  it('asks again for a date that is not on the calendar', async () => {
    const asked = await ask('Book a flight from Rome to Oslo on 2026-02-30');
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(text(asked.status.message)).toContain('2026-02-30 is not a date on the calendar');
    const booked = await ask('2026-02-28', { taskId: asked.id });
    expect(itineraryOf(booked)?.data).toMatchObject({ from: 'Rome', to: 'Oslo', date: '2026-02-28' });
  });

  it('books from a typed data part, for the passengers it names', async () => {
    const result = await engine.sendMessage(
      {
        message: {
          messageId: randomUUID(),
          role: 'ROLE_USER',
          parts: [
            {
              data: { from: 'Paris', to: 'Tokyo', date: '2026-12-24', passengers: [{ name: 'Ada' }, { name: 'Alan' }] },
            },
          ],
        },
      },
      call,
    );
    const task = (result as { task: Task }).task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const expected = quote('Paris', 'Tokyo', '2026-12-24', ['Ada', 'Alan']);
    expect(itineraryOf(task)?.data).toEqual(expected);
    expect(expected.price.amount).toBe(2 * quote('Paris', 'Tokyo', '2026-12-24').price.amount);
  });

  it('asks again, with the violations as data, for a data part that does not validate; a corrected one books', async () => {
    const data = { from: 'Paris', to: 'Tokyo', date: '2026-12-24', passengers: [{ name: '' }], seat: 'window' };
    const asked = (await engine.sendMessage(
      { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data }] } },
      call,
    )) as { task: Task };
    expect(asked.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(asked.task.status.message?.parts[1]).toEqual({
      data: {
        fieldViolations: [
          { field: 'seat', description: 'property seat should not exist' },
          { field: 'passengers[0].name', description: 'name should not be empty' },
        ],
      },
      mediaType: 'application/json',
    });
    const { seat: _seat, ...fixed } = { ...data, passengers: [{ name: 'Ada' }] };
    const booked = await engine.sendMessage(
      { message: { messageId: randomUUID(), role: 'ROLE_USER', taskId: asked.task.id, parts: [{ data: fixed }] } },
      call,
    );
    expect(itineraryOf((booked as { task: Task }).task)?.data).toEqual(quote('Paris', 'Tokyo', '2026-12-24', ['Ada']));
  });

  it('rejects a flight to where the traveller already is', async () => {
    const task = await ask('Book a flight from Paris to paris on 2026-12-24');
    expect(task.status.state).toBe('TASK_STATE_REJECTED');
  });

  it('routes weather questions to the weather skill (TravelRouter)', async () => {
    const task = await ask("What's the weather in Tokyo tomorrow?");
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const forecast = forecastFor('Tokyo');
    const [summary, data] = task.artifacts?.find((a) => a.name === 'forecast')?.parts ?? [];
    expect(data).toEqual({ data: forecast, mediaType: 'application/json' });
    expect(summary.text).toBe(
      `Tokyo tomorrow: ${forecast.conditions}, high ${forecast.highC}°C, low ${forecast.lowC}°C, ${forecast.chanceOfRainPercent}% chance of rain.`,
    );
    expect(text(task.status.message)).toBe(summary.text);
    expect((await ask('weather in tokyo')).artifacts).toEqual(
      task.artifacts?.map((a) => ({ ...a, artifactId: expect.any(String) })),
    );
  });

  it('asks which city when a weather question names none', async () => {
    const asked = await ask('What will the weather be like?');
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const answered = await ask('Lisbon', { taskId: asked.id });
    expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
    expect(answered.artifacts?.[0].parts[1]).toEqual({ data: forecastFor('Lisbon'), mediaType: 'application/json' });
  });
});

describe('travel agent, canceled while booking', () => {
  let app: INestApplication;
  // Pauses long enough that only the cancel can end them; a pause that ignored the signal would keep Jest from exiting.
  beforeAll(async () => {
    app = await boot({ stepDelayMs: 10 * 60 * 1000 });
  });
  afterAll(() => app.close());

  it('stops the booking when the task is canceled', async () => {
    const engine = app.get(A2aEngine);
    const stream = engine.sendStreamingMessage(
      { message: userMessage('Book a flight from Paris to Tokyo on 2026-12-24') },
      call,
    );
    const events: StreamResponse[] = [];
    const done = new Promise<void>((resolve, reject) =>
      stream.subscribe({
        next: (event) => {
          events.push(event);
          if (events.length === 1 && 'task' in event) void engine.cancelTask({ id: event.task.id }, call).catch(reject);
        },
        error: reject,
        complete: resolve,
      }),
    );
    await done;
    expect(events.map(shape)).toEqual(['task:TASK_STATE_WORKING', 'status:TASK_STATE_CANCELED:']);
    const task = await engine.getTask({ id: (events[0] as { task: Task }).task.id }, call);
    expect(task.status.state).toBe('TASK_STATE_CANCELED');
    expect(task.artifacts).toBeUndefined();
  });
});

describe('travel agent, over HTTP', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [TravelModule.forRoot({ baseUrl: 'http://travel.example.com', stepDelayMs: 0 })],
    }).compile();
    app = createTestApplication(moduleRef);
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(() => app.close());

  async function rpc(method: string, params: unknown, accept = 'application/json'): Promise<Response> {
    return fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: accept, 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
    });
  }

  // Response bodies are checked field by field, so they are read untyped.
  const json = (res: Response): Promise<any> => res.json();

  /** The `data:` payloads of an SSE response, read until the server closes it. */
  async function sseData(res: Response): Promise<any[]> {
    const body = await res.text();
    return body
      .split('\n\n')
      .flatMap((frame) => frame.split('\n').filter((line) => line.startsWith('data: ')))
      .map((line) => JSON.parse(line.slice('data: '.length)));
  }

  it('serves a card with both skills and the default mounts', async () => {
    const card = await json(await fetch(`${url}/.well-known/agent-card.json`));
    expect(card.name).toBe('Travel agent');
    expect(card.supportedInterfaces).toEqual([
      { url: 'http://travel.example.com/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: 'http://travel.example.com/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
    expect(card.skills.map((s: { id: string }) => s.id)).toEqual(['book-flight', 'weather']);
    expect(card.skills[0]).not.toHaveProperty('default');
    expect(card.skills[0]).not.toHaveProperty('input');
    // The flight skill's typed input, as a JSON Schema (docs/skills-and-typed-inputs.md).
    const [inputs] = card.capabilities.extensions;
    expect(inputs.uri).toBe('https://nestjs-a2a.dev/extensions/skill-input-schema/v1');
    expect(Object.keys(inputs.params)).toEqual(['book-flight']);
    expect(inputs.params['book-flight']).toMatchObject({
      title: 'BookFlightInput',
      required: ['from', 'to', 'date'],
      $defs: { Passenger: { required: ['name'] } },
    });
  });

  it('books a flight over two turns: JSON-RPC SendMessage, then a streamed follow-up, then REST GetTask', async () => {
    const first = await json(await rpc('SendMessage', { message: userMessage('Book a flight from Paris to Tokyo') }));
    const asked = first.result.task;
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(text(asked.status.message)).toContain('from Paris to Tokyo');

    const res = await rpc(
      'SendStreamingMessage',
      { message: userMessage('2026-12-24', { taskId: asked.id, contextId: asked.contextId }) },
      'text/event-stream',
    );
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = (await sseData(res)).map((envelope) => envelope.result as StreamResponse);
    expect(frames.map(shape)).toEqual([
      'task:TASK_STATE_INPUT_REQUIRED',
      'status:TASK_STATE_WORKING:Searching flights from Paris to Tokyo on 2026-12-24…',
      'status:TASK_STATE_WORKING:Comparing fares…',
      expect.stringMatching(/^status:TASK_STATE_WORKING:Booking /),
      'artifact:itinerary',
      expect.stringMatching(/^status:TASK_STATE_COMPLETED:Booked /),
    ]);

    const task = await json(await fetch(`${url}/a2a/rest/tasks/${asked.id}`, { headers: { 'A2A-Version': '1.0' } }));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts[0].parts[0]).toEqual({
      data: quote('Paris', 'Tokyo', '2026-12-24'),
      mediaType: 'application/json',
    });
    expect(task.history.filter((m: Message) => m.role === 'ROLE_USER').map(text)).toEqual([
      'Book a flight from Paris to Tokyo',
      '2026-12-24',
    ]);
  });

  it('answers a weather question over HTTP+JSON', async () => {
    const res = await fetch(`${url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/a2a+json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ message: userMessage('weather in Paris') }),
    });
    expect(res.status).toBe(200);
    const { task } = await json(res);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts[0].parts[1].data).toEqual(forecastFor('Paris'));
  });
});

describe("travel agent, with bearer JWTs (docs/security.md's secured config)", () => {
  let app: INestApplication;
  let url: string;
  let idp: IdentityProvider;

  beforeAll(async () => {
    idp = await IdentityProvider.start();
    const security = {
      jwksUrl: idp.jwksUrl,
      issuer: idp.issuer,
      audience: 'travel-agent',
      allowInsecureHttp: ['127.0.0.1'],
    };
    const moduleRef = await Test.createTestingModule({
      imports: [TravelModule.forRoot({ baseUrl: 'http://travel.example.com', stepDelayMs: 0, security })],
    }).compile();
    app = createTestApplication(moduleRef);
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(async () => {
    await app?.close();
    await idp?.stop();
  });

  const send = async (words: string, token?: string) => {
    const res = await fetch(`${url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'A2A-Version': '1.0',
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage(words) } }),
    });
    return {
      status: res.status,
      challenge: res.headers.get('www-authenticate'),
      body: (await res.json()) as { result?: { task: Task }; error?: { code: number } },
    };
  };

  it('declares the bearer scheme, and the booking scope on the booking skill only', async () => {
    const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as {
      securitySchemes: unknown;
      skills: Array<{ id: string; securityRequirements?: unknown }>;
    };
    expect(card.securitySchemes).toEqual({
      bearer: {
        httpAuthSecurityScheme: {
          scheme: 'Bearer',
          bearerFormat: 'JWT',
          description: 'An access token of the travel IdP',
        },
      },
    });
    expect(card.skills.find((s) => s.id === 'book-flight')?.securityRequirements).toEqual([
      { schemes: { bearer: { list: [BOOKING_SCOPE] } } },
    ]);
    expect(card.skills.find((s) => s.id === 'weather')).not.toHaveProperty('securityRequirements');
  });

  it('refuses a call without a token: 401 with a Bearer challenge', async () => {
    const answer = await send('weather in Paris');
    expect(answer.status).toBe(401);
    expect(answer.challenge).toBe('Bearer realm="a2a"');
    expect(answer.body.error?.code).toBe(-31401);
  });

  it('serves the weather to any valid token, but books flights only with the booking scope', async () => {
    const plain = await idp.token({ sub: 'traveller', aud: 'travel-agent' });
    expect((await send('weather in Paris', plain)).body.result?.task.status.state).toBe('TASK_STATE_COMPLETED');
    const refused = await send('Book a flight from Paris to Tokyo on 2026-12-24', plain);
    expect(refused.status).toBe(403);
    expect(refused.body.error?.code).toBe(-31403);
    expect(refused.challenge).toBe(`Bearer realm="a2a", error="insufficient_scope", scope="${BOOKING_SCOPE}"`);
    const booker = await idp.token({ sub: 'traveller', aud: 'travel-agent', scope: BOOKING_SCOPE });
    expect((await send('Book a flight from Paris to Tokyo on 2026-12-24', booker)).body.result?.task.status.state).toBe(
      'TASK_STATE_COMPLETED',
    );
  });
});
