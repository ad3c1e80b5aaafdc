import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { ConformanceModule } from '../../../apps/conformance-agent/src/conformance.module.js';
import { A2aError } from '../../../libs/a2a/src/index.js';
import { validateSendMessageRequest } from '../../../libs/a2a/src/protocol/request.validator.js';
import { TestA2aClient, artifactTextsOf, eventIdOf, expectStates, statesOf } from '../../../libs/a2a/src/testing.js';

/** The kit against the conformance agent (CONFORMANCE-AGENT.md), booted in-process without listening. */
describe('TestA2aClient', () => {
  let moduleRef: TestingModule;
  let client: TestA2aClient;

  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [ConformanceModule.forRoot({ baseUrl: 'http://localhost', push: false, subscribeHoldMs: 100 })],
    })
      .setLogger(false as never)
      .compile();
    await moduleRef.init();
    client = TestA2aClient.for(moduleRef);
  });
  afterAll(() => moduleRef.close());

  it('send: the task once it is terminal, its artifact and history', async () => {
    const { task } = await client.sendForTask('echo hello');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactTextsOf(task)).toEqual(['hello']);
    expect(task.history?.[0]).toMatchObject({
      role: 'ROLE_USER',
      parts: [{ text: 'echo hello' }],
      taskId: task.id,
      contextId: task.contextId,
    });
  });

  it('send: a direct reply, which sendForTask refuses', async () => {
    expect(await client.send('message hi there')).toEqual({
      message: expect.objectContaining({ role: 'ROLE_AGENT', parts: [{ text: 'hi there' }] }),
    });
    await expect(client.sendForTask('message hi')).rejects.toThrow(/Expected a task, got a message/);
  });

  it('send: a whole Message, a skill asked for by id, and configuration', async () => {
    const response = await client.send(
      { messageId: 'my-id', parts: [{ text: 'slow 60000' }], metadata: { mine: true } },
      { skillId: 'conformance', configuration: { returnImmediately: true } },
    );
    if (!('task' in response)) throw new Error('expected a task');
    expect(response.task.status.state).toBe('TASK_STATE_WORKING');
    expect(response.task.history?.[0]).toMatchObject({
      messageId: 'my-id',
      metadata: { mine: true, 'nestjs-a2a/skillId': 'conformance' },
    });
    await client.cancel(response.task.id);
  });

  it('stream: the frames a binding would send, to the end', async () => {
    const frames = await client.streamAll('stream 3');
    expectStates(frames, ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    expect(artifactTextsOf(frames)).toEqual(['chunk 1', 'chunk 2', 'chunk 3']);
    // Each frame has the event id an SSE binding would write, rising with the task's version.
    const ids = frames.map((frame) => Number(eventIdOf(frame)));
    expect(ids.every((id, index) => Number.isInteger(id) && (index === 0 || id > ids[index - 1]))).toBe(true);
  });

  it('stream: an Observable to read as the test likes', async () => {
    const first = await firstValueFrom(client.stream('echo once'));
    expect('task' in first && first.task.status.state).toBe('TASK_STATE_WORKING');
  });

  it('a follow-up answers an INPUT_REQUIRED task', async () => {
    const { task } = await client.sendForTask('ask');
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const { task: answered } = await client.sendForTask('Paris', { taskId: task.id, contextId: task.contextId });
    expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactTextsOf(answered)).toEqual(['answer: Paris']);
  });

  it('getTask, listTasks and cancel', async () => {
    const { task } = await client.sendForTask('slow 60000', { configuration: { returnImmediately: true } });
    expect((await client.getTask(task.id, { historyLength: 0 })).history).toBeUndefined();
    expect((await client.listTasks({ status: 'TASK_STATE_WORKING' })).tasks.map((t) => t.id)).toContain(task.id);
    expect((await client.cancel(task.id)).status.state).toBe('TASK_STATE_CANCELED');
    expect((await client.getTask(task.id)).status.state).toBe('TASK_STATE_CANCELED');
  });

  it('subscribe: the task, then its events to the end', async () => {
    const { task } = await client.sendForTask(
      { messageId: 'test-subscribe-message-id-kit', parts: [{ text: 'hold' }] },
      { configuration: { returnImmediately: true } },
    );
    expect(statesOf(await client.subscribeAll(task.id))).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
  });

  it('subscribe with lastEventId: only what came after that frame', async () => {
    const { task } = await client.sendForTask('slow 60000', { configuration: { returnImmediately: true } });
    const all = lastValueFrom(client.subscribe(task.id).pipe(toArray()));
    const [head] = await lastValueFrom(client.subscribe(task.id).pipe(take(1), toArray()));
    const resumed = lastValueFrom(client.subscribe(task.id, { lastEventId: eventIdOf(head) }).pipe(toArray()));
    await client.cancel(task.id);
    const frames = await all;
    expect(statesOf(frames)).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_CANCELED']);
    expect(await resumed).toEqual(frames.slice(1));
  });

  it("gives the bindings' validation errors for bad input: the same A2aError as the validator", async () => {
    const bad = { message: { messageId: 'm', role: 'user', parts: [] } };
    let expected: unknown;
    try {
      validateSendMessageRequest(bad);
    } catch (error) {
      expected = error;
    }
    const refusal = client.request('SendMessage', bad);
    await expect(refusal).rejects.toBeInstanceOf(A2aError);
    await expect(refusal).rejects.toEqual(expected);
    await expect(refusal).rejects.toMatchObject({
      kind: 'InvalidParams',
      fieldViolations: [{ field: 'message.role' }, { field: 'message.parts' }],
    });
    // A stream's validation error is its first notification, as on the bindings.
    await expect(lastValueFrom(client.request('SendStreamingMessage', bad))).rejects.toEqual(expected);
    await expect(client.getTask('')).rejects.toMatchObject({
      kind: 'InvalidParams',
      fieldViolations: [{ field: 'id' }],
    });
    await expect(client.listTasks({ pageSize: 1000 })).rejects.toMatchObject({
      kind: 'InvalidParams',
      fieldViolations: [{ field: 'pageSize' }],
    });
  });

  it("answers with the engine's protocol errors", async () => {
    await expect(client.getTask('nope')).rejects.toMatchObject({ kind: 'TaskNotFound' });
    const { task } = await client.sendForTask('echo done');
    await expect(client.cancel(task.id)).rejects.toMatchObject({ kind: 'TaskNotCancelable' });
    await expect(client.request('GetTaskPushNotificationConfig', { taskId: task.id, id: 'c' })).rejects.toMatchObject({
      kind: 'PushNotificationNotSupported',
    });
    await expect(lastValueFrom(client.subscribe('nope'))).rejects.toMatchObject({ kind: 'TaskNotFound' });
  });

  it("scopes tasks to the caller's principal and tenant", async () => {
    const alice = TestA2aClient.for(moduleRef, { principal: 'alice', tenant: 'acme' });
    const { task } = await alice.sendForTask('echo mine');
    expect(alice.call).toMatchObject({ principal: { id: 'alice', authenticated: true }, tenant: 'acme' });
    expect((await alice.getTask(task.id)).id).toBe(task.id);
    await expect(alice.as('bob').getTask(task.id)).rejects.toMatchObject({ kind: 'TaskNotFound' });
    await expect(alice.as('alice', { tenant: 'other' }).getTask(task.id)).rejects.toMatchObject({
      kind: 'TaskNotFound',
    });
    await expect(client.getTask(task.id)).rejects.toMatchObject({ kind: 'TaskNotFound' });
    expect((await alice.listTasks()).tasks.map((t) => t.id)).toEqual([task.id]);
  });

  it('reads a stream as it comes, and stops the skill when the test cancels', async () => {
    const frames = client.stream('slow 60000');
    const [head] = await lastValueFrom(frames.pipe(take(1), toArray()));
    if (!('task' in head)) throw new Error('expected the task first');
    const rest = lastValueFrom(client.subscribe(head.task.id).pipe(toArray()));
    await client.cancel(head.task.id);
    expect(statesOf(await rest)).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_CANCELED']);
  });
});

describe('TestA2aClient on an INestApplication', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [ConformanceModule.forRoot({ baseUrl: 'http://localhost', push: false })],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });
  afterAll(() => app.close());

  it('drives the same engine the app serves', async () => {
    const { task } = await TestA2aClient.for(app).sendForTask('data');
    expect(
      task.artifacts?.[0].parts.map((part) => Object.keys(part).find((key) => ['data', 'raw', 'url'].includes(key))),
    ).toEqual(['data', 'raw', 'url']);
  });
});
