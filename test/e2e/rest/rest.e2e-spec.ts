import 'reflect-metadata';
import {
  ForbiddenException,
  Injectable,
  Module,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
  type INestApplication,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { Subject, filter, map, merge, type Observable } from 'rxjs';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  SKILL_ID_METADATA_KEY,
  artifact,
  complete,
  fail,
  reply,
  working,
  type SkillContext,
} from '../../../libs/a2a/src/index.js';
import { InProcessEventBus, type EventBus, type TaskEventRecord } from '../../../libs/a2a/src/store.js';
import { createTestApplication } from '../../fixtures/test-app.js';

// ---- test skills ----

/** Lets a test decide when a skill moves on: `wait` resolves once the test calls `release` (or the task is canceled). */
class Gates {
  private readonly waiting = new Map<string, () => void>();
  private readonly released = new Set<string>();

  wait(key: string, signal: AbortSignal): Promise<void> {
    if (this.released.has(key)) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiting.set(key, resolve);
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  release(key: string): void {
    this.released.add(key);
    this.waiting.get(key)?.();
  }
}
const gates = new Gates();

@AgentSkill({
  id: 'echo',
  name: 'Echo',
  description: 'Completes with the text as an artifact',
  tags: ['test'],
  default: true,
})
class EchoSkill extends A2aSkillHandler {
  handle({ text }: SkillContext) {
    return [working(), artifact(text, { name: 'echo' }), complete()];
  }
}

@AgentSkill({ id: 'reply', name: 'Reply', description: 'Answers with a message', tags: ['test'] })
class ReplySkill extends A2aSkillHandler {
  handle({ text }: SkillContext) {
    return [reply(`you said ${text}`)];
  }
}

/** WORKING, then (once its gate, named by the text, is released) two chunks of one artifact, then COMPLETED. */
@AgentSkill({ id: 'gated', name: 'Gated', description: 'Waits for the test', tags: ['test'] })
class GatedSkill extends A2aSkillHandler {
  async *handle({ text, signal }: SkillContext) {
    yield working();
    await gates.wait(text, signal);
    if (signal.aborted) return;
    yield artifact('part 1', { artifactId: 'a1' });
    yield artifact('part 2', { artifactId: 'a1', append: true, lastChunk: true });
    yield complete();
  }
}

@AgentSkill({ id: 'silent', name: 'Silent', description: 'Emits nothing', tags: ['test'] })
class SilentSkill extends A2aSkillHandler {
  handle() {
    return [];
  }
}

@AgentSkill({ id: 'fail', name: 'Fail', description: 'Fails', tags: ['test'] })
class FailSkill extends A2aSkillHandler {
  handle() {
    return [fail('cannot do that')];
  }
}

/** A user's guard: `X-Test-Auth: none` is unauthenticated, `deny` is forbidden. */
@Injectable()
class TestAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const auth = context.switchToHttp().getRequest<{ headers: Record<string, string> }>().headers['x-test-auth'];
    if (auth === 'none') throw new UnauthorizedException('Who are you?');
    if (auth === 'deny') throw new ForbiddenException('Not you');
    return true;
  }
}

/** The in-process bus, plus a way to make a task's watchers fail as a broken distributed bus would. */
class BreakableEventBus implements EventBus {
  readonly inner = new InProcessEventBus();
  private readonly breaks = new Subject<string>();

  publish(record: TaskEventRecord): void {
    this.inner.publish(record);
  }

  watch(taskId: string): Observable<TaskEventRecord> {
    const broken$ = this.breaks.pipe(
      filter((id) => id === taskId),
      map((): TaskEventRecord => {
        throw new Error('event bus connection lost');
      }),
    );
    return merge(this.inner.watch(taskId), broken$);
  }

  break(taskId: string): void {
    this.breaks.next(taskId);
  }
}

const SKILLS = [EchoSkill, ReplySkill, GatedSkill, SilentSkill, FailSkill];

// ---- helpers ----

interface HttpResult {
  status: number;
  contentType: string | null;
  body: any;
}

interface SseFrame {
  event?: string;
  data: any;
}

/** Reads SSE frames one by one; comment frames (heartbeats) are skipped. */
class SseReader {
  private buffer = '';
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();

  constructor(readonly response: Response) {
    this.reader = response.body!.getReader();
  }

  /** The next frame, or undefined once the server has closed the stream. */
  async next(): Promise<SseFrame | undefined> {
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const raw = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const frame = parseFrame(raw);
        if (frame) return frame;
        continue;
      }
      const { done, value } = await this.reader.read();
      if (done) return undefined;
      this.buffer += this.decoder.decode(value, { stream: true });
    }
  }

  async rest(): Promise<SseFrame[]> {
    const frames: SseFrame[] = [];
    for (let frame = await this.next(); frame; frame = await this.next()) frames.push(frame);
    return frames;
  }
}

function jsonOf(res: Response): Promise<any> {
  return res.json();
}

function parseFrame(raw: string): SseFrame | undefined {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of raw.split('\n')) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  if (data.length === 0) return undefined;
  return { ...(event ? { event } : {}), data: JSON.parse(data.join('\n')) };
}

function userMessage(text: string, skill = 'echo', extra: Record<string, unknown> = {}) {
  return {
    messageId: randomUUID(),
    role: 'ROLE_USER',
    parts: [{ text }],
    metadata: { [SKILL_ID_METADATA_KEY]: skill },
    ...extra,
  };
}

function expectRestError(result: HttpResult, code: number, status: string, reason?: string): void {
  expect(result.status).toBe(code);
  expect(result.contentType).toMatch(/^application\/a2a\+json/);
  expect(result.body).toEqual({ error: { code, status, message: expect.any(String), details: expect.any(Array) } });
  if (reason) {
    expect(result.body.error.details).toContainEqual(
      expect.objectContaining({
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason,
        domain: 'a2a-protocol.org',
      }),
    );
  }
  expect(JSON.stringify(result.body)).not.toMatch(/\.[jt]s:\d+/);
}

function fieldViolations(result: HttpResult): Array<{ field: string; description: string }> {
  const badRequest = result.body.error.details.find(
    (d: { '@type': string }) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest',
  );
  return badRequest?.fieldViolations ?? [];
}

/** Bounded polling for what happens in the background (no timing assertion: only the eventual state is checked). */
async function eventually<T>(probe: () => Promise<T> | T, accept: (value: T) => boolean): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const value = await probe();
    if (accept(value) || attempt >= 250) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function bootApp(imports: unknown[], providers: unknown[]): Promise<{ app: INestApplication; url: string }> {
  @Module({ imports: imports as never[], providers: providers as never[] })
  class AppModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = createTestApplication(moduleRef);
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}

/** Every POST declares JSON, with a body or without (as a2a-js clients send it): the binding refuses any other. */
function client(base: string) {
  const request = async (
    method: string,
    path: string,
    options: { body?: unknown; contentType?: string; headers?: Record<string, string> } = {},
  ): Promise<HttpResult> => {
    const { body, contentType = 'application/a2a+json', headers = {} } = options;
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        'A2A-Version': '1.0',
        ...(body !== undefined || method === 'POST' ? { 'Content-Type': contentType } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      contentType: res.headers.get('content-type'),
      body: text ? JSON.parse(text) : undefined,
    };
  };
  const stream = async (method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        'A2A-Version': '1.0',
        Accept: 'text/event-stream',
        ...(method === 'POST' ? { 'Content-Type': 'application/a2a+json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
    return new SseReader(res);
  };
  return { request, stream };
}

// ---- the binding at its default prefix ----

describe('HTTP+JSON binding (§11)', () => {
  let app: INestApplication;
  const bus = new BreakableEventBus();
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    const booted = await bootApp(
      [
        A2aModule.forRoot({
          card: { name: 'REST test agent', description: 'Test skills' },
          eventBus: bus,
          security: { anonymousCallers: 'shared' },
        }),
      ],
      [...SKILLS, { provide: APP_GUARD, useClass: TestAuthGuard }],
    );
    app = booted.app;
    api = client(`${booted.url}/a2a/rest`);
  });
  afterAll(() => app.close());

  const send = (text: string, skill = 'echo', extra: Record<string, unknown> = {}) =>
    api.request('POST', '/message:send', { body: { message: userMessage(text, skill), ...extra } });

  /** A task of the gated skill, left WORKING until `gates.release(text)`. */
  async function workingTask(text: string, path = '/message:send'): Promise<string> {
    const result = await api.request('POST', path, {
      body: { message: userMessage(text, 'gated'), configuration: { returnImmediately: true } },
    });
    expect(result.status).toBe(200);
    expect(result.body.task.status.state).toBe('TASK_STATE_WORKING');
    return result.body.task.id;
  }

  describe('SendMessage', () => {
    it('answers a bare SendMessageResponse with the task, as application/a2a+json', async () => {
      const result = await send('hello');
      expect(result.status).toBe(200);
      expect(result.contentType).toMatch(/^application\/a2a\+json/);
      expect(result.body).toEqual({
        task: expect.objectContaining({ id: expect.any(String), contextId: expect.any(String) }),
      });
      expect(result.body.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(result.body.task.artifacts).toEqual([
        expect.objectContaining({ name: 'echo', parts: [{ text: 'hello' }] }),
      ]);
    });

    it('accepts application/json bodies too', async () => {
      const result = await api.request('POST', '/message:send', {
        body: { message: userMessage('plain json') },
        contentType: 'application/json',
      });
      expect(result.status).toBe(200);
      expect(result.body.task.artifacts[0].parts).toEqual([{ text: 'plain json' }]);
    });

    it('answers a direct reply as {"message": …}', async () => {
      const result = await send('hi', 'reply');
      expect(result.status).toBe(200);
      expect(result.body).toEqual({
        message: expect.objectContaining({ role: 'ROLE_AGENT', parts: [{ text: 'you said hi' }] }),
      });
    });

    it('refuses an invalid request with 400 INVALID_ARGUMENT and BadRequest field violations', async () => {
      const result = await api.request('POST', '/message:send', {
        body: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [] } },
      });
      expectRestError(result, 400, 'INVALID_ARGUMENT');
      expect(fieldViolations(result)).toEqual([{ field: 'message.parts', description: expect.any(String) }]);
    });

    it('refuses a body that is not a JSON object, and an empty one', async () => {
      expectRestError(await api.request('POST', '/message:send', { body: [1, 2] }), 400, 'INVALID_ARGUMENT');
      expectRestError(await api.request('POST', '/message:send'), 400, 'INVALID_ARGUMENT');
    });

    it('answers 400 UNSUPPORTED_OPERATION to a message for a terminal task', async () => {
      const done = await send('finished');
      const result = await api.request('POST', '/message:send', {
        body: { message: userMessage('more', 'echo', { taskId: done.body.task.id }) },
      });
      expectRestError(result, 400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION');
    });

    it('answers 404 TASK_NOT_FOUND to a message for an unknown task', async () => {
      const result = await api.request('POST', '/message:send', {
        body: { message: userMessage('more', 'echo', { taskId: 'no-such-task' }) },
      });
      expectRestError(result, 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    });

    it('answers 400 CONTENT_TYPE_NOT_SUPPORTED when no accepted output mode fits the skill', async () => {
      const result = await send('picture please', 'echo', { configuration: { acceptedOutputModes: ['image/png'] } });
      expectRestError(result, 400, 'INVALID_ARGUMENT', 'CONTENT_TYPE_NOT_SUPPORTED');
    });

    it('answers 500 INVALID_AGENT_RESPONSE when the skill emits nothing', async () => {
      expectRestError(await send('anything', 'silent'), 500, 'INTERNAL', 'INVALID_AGENT_RESPONSE');
    });

    it('returns a failed task as a task, not as an error', async () => {
      const result = await send('try', 'fail');
      expect(result.status).toBe(200);
      expect(result.body.task.status.state).toBe('TASK_STATE_FAILED');
    });

    it('answers 400 VERSION_NOT_SUPPORTED to A2A-Version 0.3, from the header or the query', async () => {
      const byHeader = await api.request('POST', '/message:send', {
        body: { message: userMessage('x') },
        headers: { 'A2A-Version': '0.3' },
      });
      expectRestError(byHeader, 400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED');
      const res = await fetch(`${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/a2a/rest/tasks?A2A-Version=0.3`);
      expect(res.status).toBe(400);
      expect((await jsonOf(res)).error.details[0].reason).toBe('VERSION_NOT_SUPPORTED');
    });

    it("answers a user's guard in the same shape: 401 UNAUTHENTICATED, 403 PERMISSION_DENIED", async () => {
      const unauthenticated = await api.request('POST', '/message:send', {
        body: { message: userMessage('x') },
        headers: { 'X-Test-Auth': 'none' },
      });
      expectRestError(unauthenticated, 401, 'UNAUTHENTICATED', 'UNAUTHENTICATED');
      expect(unauthenticated.body.error.message).toBe('Who are you?');
      const forbidden = await api.request('GET', '/tasks', { headers: { 'X-Test-Auth': 'deny' } });
      expectRestError(forbidden, 403, 'PERMISSION_DENIED', 'PERMISSION_DENIED');
    });
  });

  describe('GetTask', () => {
    it('returns the bare task; historyLength trims the history', async () => {
      const { body } = await send('remember me');
      const id = body.task.id;
      const full = await api.request('GET', `/tasks/${id}`);
      expect(full.status).toBe(200);
      expect(full.contentType).toMatch(/^application\/a2a\+json/);
      expect(full.body).toMatchObject({ id, status: { state: 'TASK_STATE_COMPLETED' } });
      expect(full.body.history).toHaveLength(1);
      const none = await api.request('GET', `/tasks/${id}?historyLength=0`);
      expect(none.body.history).toBeUndefined();
    });

    it('refuses a non-numeric or negative historyLength with InvalidParams', async () => {
      const { body } = await send('x');
      const word = await api.request('GET', `/tasks/${body.task.id}?historyLength=ten`);
      expectRestError(word, 400, 'INVALID_ARGUMENT');
      expect(fieldViolations(word)).toEqual([{ field: 'historyLength', description: expect.any(String) }]);
      const negative = await api.request('GET', `/tasks/${body.task.id}?historyLength=-1`);
      expect(fieldViolations(negative)).toEqual([{ field: 'historyLength', description: expect.any(String) }]);
    });

    it('answers 404 TASK_NOT_FOUND for an unknown task', async () => {
      const result = await api.request('GET', '/tasks/no-such-task');
      expectRestError(result, 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
      expect(result.body.error.details[0].metadata).toEqual({ taskId: 'no-such-task' });
    });
  });

  describe('ListTasks', () => {
    const contextId = randomUUID();
    let ids: string[];

    beforeAll(async () => {
      ids = [];
      for (const text of ['one', 'two', 'three']) {
        const result = await api.request('POST', '/message:send', {
          body: { message: userMessage(text, 'echo', { contextId }) },
        });
        ids.push(result.body.task.id);
      }
    });

    it('filters by contextId and decodes pageSize, with cursor paging', async () => {
      const first = await api.request('GET', `/tasks?contextId=${contextId}&pageSize=2`);
      expect(first.status).toBe(200);
      expect(first.contentType).toMatch(/^application\/a2a\+json/);
      expect(first.body).toMatchObject({ pageSize: 2, totalSize: 3, nextPageToken: expect.any(String) });
      expect(first.body.tasks).toHaveLength(2);
      const second = await api.request(
        'GET',
        `/tasks?contextId=${contextId}&pageSize=2&pageToken=${encodeURIComponent(first.body.nextPageToken)}`,
      );
      expect(second.body.tasks).toHaveLength(1);
      expect(second.body.nextPageToken).toBe('');
      const seen = [...first.body.tasks, ...second.body.tasks].map((t: { id: string }) => t.id);
      expect(seen.sort()).toEqual([...ids].sort());
    });

    it('decodes includeArtifacts, historyLength, status and statusTimestampAfter', async () => {
      const without = await api.request('GET', `/tasks?contextId=${contextId}`);
      expect(without.body.tasks.every((t: object) => !('artifacts' in t))).toBe(true);
      const withArtifacts = await api.request(
        'GET',
        `/tasks?contextId=${contextId}&includeArtifacts=true&historyLength=0`,
      );
      expect(
        withArtifacts.body.tasks.every(
          (t: { artifacts?: unknown[]; history?: unknown }) => t.artifacts?.length === 1 && t.history === undefined,
        ),
      ).toBe(true);
      const explicitFalse = await api.request('GET', `/tasks?contextId=${contextId}&includeArtifacts=false`);
      expect(explicitFalse.body.tasks.every((t: object) => !('artifacts' in t))).toBe(true);
      const working = await api.request('GET', `/tasks?contextId=${contextId}&status=TASK_STATE_WORKING`);
      expect(working.body).toMatchObject({ tasks: [], totalSize: 0 });
      const completed = await api.request('GET', `/tasks?contextId=${contextId}&status=TASK_STATE_COMPLETED`);
      expect(completed.body.totalSize).toBe(3);
      const future = await api.request(
        'GET',
        `/tasks?contextId=${contextId}&statusTimestampAfter=2999-01-01T00:00:00Z`,
      );
      expect(future.body.totalSize).toBe(0);
      const past = await api.request(
        'GET',
        `/tasks?contextId=${contextId}&statusTimestampAfter=2000-01-01T00:00:00.000Z`,
      );
      expect(past.body.totalSize).toBe(3);
    });

    it('refuses undecodable or out-of-range parameters with InvalidParams', async () => {
      for (const [query, field] of [
        ['pageSize=abc', 'pageSize'],
        ['pageSize=1.5', 'pageSize'],
        ['pageSize=150', 'pageSize'],
        ['pageSize=1&pageSize=2', 'pageSize'],
        ['includeArtifacts=yes', 'includeArtifacts'],
        ['status=completed', 'status'],
        ['statusTimestampAfter=yesterday', 'statusTimestampAfter'],
      ]) {
        const result = await api.request('GET', `/tasks?${query}`);
        expectRestError(result, 400, 'INVALID_ARGUMENT');
        expect(fieldViolations(result).map((v) => v.field)).toEqual([field]);
      }
    });
  });

  describe('CancelTask', () => {
    it('cancels with an empty POST as the a2a-js client sends it (application/json, content-length 0)', async () => {
      const id = await workingTask(`cancel-empty-${randomUUID()}`);
      const res = await fetch(`${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/a2a/rest/tasks/${id}:cancel`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/a2a\+json/);
      expect((await jsonOf(res)).status.state).toBe('TASK_STATE_CANCELED');
    });

    it('cancels with {} and with {"metadata": …}, and with no body at all (its Content-Type only)', async () => {
      const viaEmptyObject = await workingTask(`cancel-obj-${randomUUID()}`);
      expect((await api.request('POST', `/tasks/${viaEmptyObject}:cancel`, { body: {} })).body.status.state).toBe(
        'TASK_STATE_CANCELED',
      );
      const viaMetadata = await workingTask(`cancel-meta-${randomUUID()}`);
      const withMetadata = await api.request('POST', `/tasks/${viaMetadata}:cancel`, {
        body: { metadata: { reason: 'test' } },
      });
      expect(withMetadata.status).toBe(200);
      expect(withMetadata.body.status.state).toBe('TASK_STATE_CANCELED');
      const viaNothing = await workingTask(`cancel-none-${randomUUID()}`);
      expect((await api.request('POST', `/tasks/${viaNothing}:cancel`)).body.status.state).toBe('TASK_STATE_CANCELED');
    });

    it('answers 400 TASK_NOT_CANCELABLE for a completed task, 404 for an unknown one', async () => {
      const { body } = await send('done already');
      expectRestError(
        await api.request('POST', `/tasks/${body.task.id}:cancel`),
        400,
        'FAILED_PRECONDITION',
        'TASK_NOT_CANCELABLE',
      );
      const unknown = await api.request('POST', '/tasks/nope:cancel');
      expectRestError(unknown, 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
      expect(unknown.body.error.details[0].metadata).toEqual({ taskId: 'nope' });
    });

    it('refuses a body whose id differs from the path', async () => {
      const id = await workingTask(`cancel-mismatch-${randomUUID()}`);
      const result = await api.request('POST', `/tasks/${id}:cancel`, { body: { id: 'another-task' } });
      expectRestError(result, 400, 'INVALID_ARGUMENT');
      expect(fieldViolations(result).map((v) => v.field)).toEqual(['id']);
      await api.request('POST', `/tasks/${id}:cancel`);
    });
  });

  describe('routing of literal colons and tenants', () => {
    it('never reads "x:subscribe" or "x:cancel" as a task id', async () => {
      const subscribe = await api.request('GET', '/tasks/x:subscribe');
      expectRestError(subscribe, 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
      expect(subscribe.body.error.details[0].metadata).toEqual({ taskId: 'x' });
      const cancel = await api.request('POST', '/tasks/x:cancel');
      expect(cancel.body.error.details[0].metadata).toEqual({ taskId: 'x' });
    });

    it('lets fixed routes win over tenant ones: GET /tasks/tasks is the task "tasks"', async () => {
      const result = await api.request('GET', '/tasks/tasks');
      expectRestError(result, 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
      expect(result.body.error.details[0].metadata).toEqual({ taskId: 'tasks' });
    });

    it('serves every route below /{tenant}, with tasks kept per tenant', async () => {
      const created = await api.request('POST', '/acme/message:send', {
        body: { message: userMessage('tenant task') },
      });
      expect(created.status).toBe(200);
      const id = created.body.task.id;
      expect((await api.request('GET', `/acme/tasks/${id}`)).body.id).toBe(id);
      expect((await api.request('GET', '/acme/tasks')).body.tasks.map((t: { id: string }) => t.id)).toEqual([id]);
      expectRestError(await api.request('GET', `/tasks/${id}`), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
      expectRestError(await api.request('GET', `/other/tasks/${id}`), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
      expectRestError(
        await api.request('POST', `/acme/tasks/${id}:cancel`),
        400,
        'FAILED_PRECONDITION',
        'TASK_NOT_CANCELABLE',
      );
      expectRestError(
        await api.request('GET', `/acme/tasks/${id}:subscribe`),
        400,
        'FAILED_PRECONDITION',
        'UNSUPPORTED_OPERATION',
      );
      expectRestError(
        await api.request('GET', '/acme/extendedAgentCard'),
        400,
        'FAILED_PRECONDITION',
        'UNSUPPORTED_OPERATION',
      );
    });

    it('accepts a body tenant equal to the path tenant and refuses a different one', async () => {
      const same = await api.request('POST', '/acme/message:send', {
        body: { tenant: 'acme', message: userMessage('same tenant') },
      });
      expect(same.status).toBe(200);
      const other = await api.request('POST', '/acme/message:send', {
        body: { tenant: 'globex', message: userMessage('other tenant') },
      });
      expectRestError(other, 400, 'INVALID_ARGUMENT');
      expect(fieldViolations(other).map((v) => v.field)).toEqual(['tenant']);
    });

    it('takes the tenant from the body on a route without one', async () => {
      const created = await api.request('POST', '/message:send', {
        body: { tenant: 'initech', message: userMessage('body tenant') },
      });
      expect(created.status).toBe(200);
      expect((await api.request('GET', `/initech/tasks/${created.body.task.id}`)).status).toBe(200);
      expectRestError(await api.request('GET', `/tasks/${created.body.task.id}`), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    });

    it('streams below /{tenant} too', async () => {
      const text = `tenant-stream-${randomUUID()}`;
      const stream = await api.stream('POST', '/acme/message:stream', { message: userMessage(text, 'gated') });
      const first = await stream.next();
      gates.release(text);
      const rest = await stream.rest();
      expect(rest.at(-1)!.data.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
      expect((await api.request('GET', `/acme/tasks/${first!.data.task.id}`)).body.status.state).toBe(
        'TASK_STATE_COMPLETED',
      );
    });
  });

  describe('operations this agent does not offer', () => {
    it.each([
      ['POST', '/tasks/t-1/pushNotificationConfigs'],
      ['GET', '/tasks/t-1/pushNotificationConfigs'],
      ['GET', '/tasks/t-1/pushNotificationConfigs/c-1'],
      ['DELETE', '/tasks/t-1/pushNotificationConfigs/c-1'],
      ['GET', '/acme/tasks/t-1/pushNotificationConfigs'],
      ['DELETE', '/acme/tasks/t-1/pushNotificationConfigs/c-1'],
    ])('%s %s → 400 PUSH_NOTIFICATION_NOT_SUPPORTED', async (method, path) => {
      const body = method === 'POST' ? { url: 'https://example.com/hook' } : undefined;
      expectRestError(
        await api.request(method, path, { body }),
        400,
        'FAILED_PRECONDITION',
        'PUSH_NOTIFICATION_NOT_SUPPORTED',
      );
    });

    it('GET /extendedAgentCard → 400 UNSUPPORTED_OPERATION', async () => {
      expectRestError(
        await api.request('GET', '/extendedAgentCard'),
        400,
        'FAILED_PRECONDITION',
        'UNSUPPORTED_OPERATION',
      );
    });
  });

  describe('SendStreamingMessage (SSE, §11.7)', () => {
    it('sends the task first, then its events in order, and closes at the terminal state', async () => {
      const text = `stream-${randomUUID()}`;
      const stream = await api.stream('POST', '/message:stream', { message: userMessage(text, 'gated') });
      expect(stream.response.status).toBe(200);
      expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const first = await stream.next();
      expect(first).toEqual({
        data: { task: expect.objectContaining({ status: expect.objectContaining({ state: 'TASK_STATE_WORKING' }) }) },
      });
      gates.release(text);
      const rest = await stream.rest();
      expect(rest.map((frame) => Object.keys(frame.data)[0])).toEqual([
        'artifactUpdate',
        'artifactUpdate',
        'statusUpdate',
      ]);
      expect(rest[0].data.artifactUpdate).toMatchObject({
        taskId: first!.data.task.id,
        artifact: { artifactId: 'a1', parts: [{ text: 'part 1' }] },
      });
      expect(rest[1].data.artifactUpdate).toMatchObject({
        append: true,
        lastChunk: true,
        artifact: { parts: [{ text: 'part 2' }] },
      });
      expect(rest[2].data.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    });

    it('sends a direct reply as exactly one message frame', async () => {
      const stream = await api.stream('POST', '/message:stream', { message: userMessage('yo', 'reply') });
      expect(await stream.rest()).toEqual([
        { data: { message: expect.objectContaining({ parts: [{ text: 'you said yo' }] }) } },
      ]);
    });

    it('answers errors known before the first event as ordinary HTTP errors, not as a stream', async () => {
      const invalid = await api.request('POST', '/message:stream', {
        body: { message: { messageId: 'm', role: 'ROLE_USER' } },
      });
      expectRestError(invalid, 400, 'INVALID_ARGUMENT');
      const silent = await api.request('POST', '/message:stream', { body: { message: userMessage('x', 'silent') } });
      expectRestError(silent, 500, 'INTERNAL', 'INVALID_AGENT_RESPONSE');
      const version = await api.request('POST', '/message:stream', {
        body: { message: userMessage('x') },
        headers: { 'A2A-Version': '0.3' },
      });
      expectRestError(version, 400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED');
    });

    it('leaves the task running when the client disconnects', async () => {
      const text = `leave-${randomUUID()}`;
      const abort = new AbortController();
      const stream = await api.stream('POST', '/message:stream', { message: userMessage(text, 'gated') }, abort.signal);
      const id = (await stream.next())!.data.task.id;
      abort.abort();
      await eventually(
        () => bus.inner.watchedTaskCount,
        (count) => count === 0,
      );
      expect(bus.inner.watchedTaskCount).toBe(0);
      gates.release(text);
      const task = await eventually(
        async () => (await api.request('GET', `/tasks/${id}`)).body,
        (t) => t.status.state === 'TASK_STATE_COMPLETED',
      );
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(task.artifacts).toHaveLength(1);
    });
  });

  describe('SubscribeToTask (SSE)', () => {
    it.each(['GET', 'POST'] as const)(
      '%s: the current task first, then every event until the terminal state',
      async (method) => {
        const text = `subscribe-${method}-${randomUUID()}`;
        const id = await workingTask(text);
        const stream = await api.stream(method, `/tasks/${id}:subscribe`, method === 'POST' ? {} : undefined);
        expect(stream.response.status).toBe(200);
        expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
        const first = await stream.next();
        expect(first!.data.task).toMatchObject({ id, status: { state: 'TASK_STATE_WORKING' } });
        gates.release(text);
        const rest = await stream.rest();
        expect(rest.map((frame) => Object.keys(frame.data)[0])).toEqual([
          'artifactUpdate',
          'artifactUpdate',
          'statusUpdate',
        ]);
        expect(rest[2].data.statusUpdate).toMatchObject({ taskId: id, status: { state: 'TASK_STATE_COMPLETED' } });
      },
    );

    it('POST also works with no body at all, as a2a-js clients send it', async () => {
      const text = `subscribe-empty-${randomUUID()}`;
      const id = await workingTask(text);
      const stream = await api.stream('POST', `/tasks/${id}:subscribe`);
      expect((await stream.next())!.data.task.id).toBe(id);
      gates.release(text);
      expect((await stream.rest()).at(-1)!.data.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    });

    it.each(['GET', 'POST'])(
      '%s: a terminal task → 400 UNSUPPORTED_OPERATION, an unknown one → 404, as plain HTTP errors',
      async (method) => {
        const { body } = await send('over');
        expectRestError(
          await api.request(method, `/tasks/${body.task.id}:subscribe`),
          400,
          'FAILED_PRECONDITION',
          'UNSUPPORTED_OPERATION',
        );
        expectRestError(await api.request(method, '/tasks/unknown:subscribe'), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
      },
    );

    it('sends an error after the first event as `event: error` with a google.rpc.Status, then closes', async () => {
      const text = `broken-${randomUUID()}`;
      const id = await workingTask(text);
      const stream = await api.stream('GET', `/tasks/${id}:subscribe`);
      expect((await stream.next())!.data.task.id).toBe(id);
      bus.break(id);
      const rest = await stream.rest();
      expect(rest).toEqual([
        {
          event: 'error',
          data: { error: { code: 500, status: 'INTERNAL', message: 'Internal error', details: expect.any(Array) } },
        },
      ]);
      gates.release(text);
    });

    it('leaves the task running when a subscriber disconnects', async () => {
      const text = `subscriber-leaves-${randomUUID()}`;
      const id = await workingTask(text);
      const abort = new AbortController();
      const stream = await api.stream('GET', `/tasks/${id}:subscribe`, undefined, abort.signal);
      await stream.next();
      abort.abort();
      await eventually(
        () => bus.inner.watchedTaskCount,
        (count) => count === 0,
      );
      expect(bus.inner.watchedTaskCount).toBe(0);
      gates.release(text);
      const task = await eventually(
        async () => (await api.request('GET', `/tasks/${id}`)).body,
        (t) => t.status.state === 'TASK_STATE_COMPLETED',
      );
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    });
  });
});

// ---- the binding at the app root, as the conformance agent mounts it ----

describe('HTTP+JSON binding mounted at the root', () => {
  let app: INestApplication;
  let url: string;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    const booted = await bootApp(
      [
        A2aModule.forRoot({
          card: { name: 'Root agent', description: 'Test skills' },
          jsonRpc: { path: '/' },
          rest: { path: '' },
          security: { anonymousCallers: 'shared' },
        }),
      ],
      SKILLS,
    );
    app = booted.app;
    url = booted.url;
    api = client(url);
  });
  afterAll(() => app.close());

  it('serves the routes at the root, with and without a tenant', async () => {
    const created = await api.request('POST', '/message:send', { body: { message: userMessage('at the root') } });
    expect(created.status).toBe(200);
    expect((await api.request('GET', `/tasks/${created.body.task.id}`)).body.id).toBe(created.body.task.id);
    const tenant = await api.request('POST', '/acme/message:send', {
      body: { message: userMessage('tenant at the root') },
    });
    expect((await api.request('GET', `/acme/tasks/${tenant.body.task.id}`)).status).toBe(200);
    expectRestError(await api.request('GET', '/tasks/tasks'), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
  });

  it('leaves the agent card alone', async () => {
    const res = await fetch(`${url}/.well-known/agent-card.json`);
    expect(res.status).toBe(200);
    expect((await jsonOf(res)).supportedInterfaces).toContainEqual(
      expect.objectContaining({ protocolBinding: 'HTTP+JSON' }),
    );
  });
});
