import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { A2aPushDispatcher, type PushDeadLetter, type StreamResponse } from '../../../libs/a2a/src/index.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { PushMessages } from '../../../libs/a2a/src/push/push.messages.js';
import { WebhookReceiver, type ReceivedRequest } from '../../fixtures/webhook-receiver.js';
import { WebhookTrap } from '../../fixtures/webhook-trap.js';

/**
 * Push notifications end to end (spec §3.3.4, §4.3.3, §13.2): the conformance agent with push on, webhooks on
 * loopback (allowlisted by `A2A_PUSH_ALLOW`'s option, except where the SSRF guard is the point), retries fast.
 */

const FAST_RETRIES = {
  baseDelayMs: 20,
  maxDelayMs: 100,
  maxAttempts: 3,
  pollIntervalMs: 50,
  connectTimeoutMs: 500,
  headersTimeoutMs: 500,
  totalTimeoutMs: 1000,
};

interface RpcAnswer<T> {
  result?: T;
  error?: { code: number; message: string; data?: Array<{ fieldViolations?: Array<{ field: string }> }> };
}

function rpcAt(agent: RunningAgent, headers: Record<string, string> = {}) {
  return async <T = Record<string, unknown>>(method: string, params: object): Promise<RpcAnswer<T>> => {
    const res = await fetch(agent.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await res.json()) as RpcAnswer<T>;
  };
}

const message = (text: string) => ({ messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] });

/** Resolves once `check` holds, polling; fails the test with `what` after `ms`. */
async function eventually(what: string, check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const bodyOf = (request: ReceivedRequest) => JSON.parse(request.body) as StreamResponse;
const seqOf = (request: ReceivedRequest) => Number(String(request.headers['x-a2a-event-id']).split(':').pop());
const stateOf = (response: StreamResponse) =>
  'task' in response
    ? response.task.status.state
    : 'statusUpdate' in response
      ? response.statusUpdate.status.state
      : undefined;

describe('push notifications (spec §3.3.4, §4.3.3, §13.2)', () => {
  let agent: RunningAgent;
  let rpc: ReturnType<typeof rpcAt>;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    agent = await startConformanceAgent({ push: { allow: '127.0.0.1/32', ...FAST_RETRIES } });
    rpc = rpcAt(agent);
  });
  afterAll(() => agent.close());
  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterEach(() => receiver.stop());

  const deadLetters = (taskId: string): Promise<PushDeadLetter[]> =>
    agent.app.get(A2aPushDispatcher).deadLetters({ taskId });

  it('says so in the card', async () => {
    const card = (await (await fetch(`${agent.url}/.well-known/agent-card.json`)).json()) as {
      capabilities: Record<string, unknown>;
    };
    expect(card.capabilities.pushNotifications).toBe(true);
  });

  it("POSTs every event of a streamed task, in order, with the config's Authorization and token and an event id (spec §3.2.2, §4.3.3)", async () => {
    const config = { url: receiver.url(), token: 'tok-1', authentication: { scheme: 'Bearer', credentials: 'cred-1' } };
    const sent = await rpc<{ task: { id: string } }>('SendMessage', {
      message: message('stream 5'),
      configuration: { taskPushNotificationConfig: config },
    });
    const taskId = sent.result!.task.id;
    await eventually('the COMPLETED status', () =>
      receiver.received.some((r) => stateOf(bodyOf(r)) === 'TASK_STATE_COMPLETED'),
    );
    const received = receiver.received;
    // The task first (as a stream starts), then the five chunks, then COMPLETED: the order the events were committed.
    expect(received.map(seqOf)).toEqual([...received.map(seqOf)].sort((a, b) => a - b));
    expect(new Set(received.map(seqOf)).size).toBe(received.length);
    expect('task' in bodyOf(received[0])).toBe(true);
    const chunks = received
      .map(bodyOf)
      .filter((b): b is Extract<StreamResponse, { artifactUpdate: unknown }> => 'artifactUpdate' in b);
    expect(chunks.map((c) => (c.artifactUpdate.artifact.parts[0] as { text: string }).text)).toEqual([
      'chunk 1',
      'chunk 2',
      'chunk 3',
      'chunk 4',
      'chunk 5',
    ]);
    expect(stateOf(bodyOf(received.at(-1)!))).toBe('TASK_STATE_COMPLETED');
    for (const request of received) {
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/hook');
      expect(request.headers['content-type']).toBe('application/a2a+json');
      expect(request.headers.authorization).toBe('Bearer cred-1');
      expect(request.headers['x-a2a-notification-token']).toBe('tok-1');
      expect(request.headers['x-a2a-event-id']).toBe(`${taskId}:${seqOf(request)}`);
    }
  });

  it("creates, gets, lists and deletes configs; a created one gets the task's next events; delete is idempotent (spec §3.1.7–§3.1.10)", async () => {
    const taskId = (await rpc<{ task: { id: string } }>('SendMessage', { message: message('stays open') })).result!.task
      .id;
    const created = await rpc<{ id: string }>('CreateTaskPushNotificationConfig', {
      taskId,
      url: receiver.url(),
      token: 't',
    });
    expect(created.result).toEqual({ id: expect.any(String), taskId, url: receiver.url(), token: 't' });
    const id = created.result!.id;
    const mine = await rpc('CreateTaskPushNotificationConfig', { taskId, id: 'mine', url: receiver.url('/other') });
    expect(mine.result).toMatchObject({ id: 'mine', taskId });
    // Read back by an anonymous caller, without the stored token (option security.anonymousCallers).
    const stored = { id, taskId, url: receiver.url() };
    expect((await rpc('GetTaskPushNotificationConfig', { taskId, id })).result).toEqual(stored);
    expect((await rpc<{ configs: unknown[] }>('ListTaskPushNotificationConfigs', { taskId })).result!.configs).toEqual([
      stored,
      mine.result,
    ]);

    expect((await rpc('DeleteTaskPushNotificationConfig', { taskId, id: 'mine' })).result).toEqual({});
    expect((await rpc('DeleteTaskPushNotificationConfig', { taskId, id: 'mine' })).result).toEqual({});
    expect((await rpc('GetTaskPushNotificationConfig', { taskId, id: 'mine' })).error?.code).toBe(-32001);

    await rpc('CancelTask', { id: taskId });
    await eventually('the CANCELED status', () => receiver.received.length === 1);
    expect(stateOf(bodyOf(receiver.received[0]))).toBe('TASK_STATE_CANCELED');
    expect(receiver.received[0].path).toBe('/hook');
  });

  it('caps the configs of one task', async () => {
    const taskId = (await rpc<{ task: { id: string } }>('SendMessage', { message: message('stays open') })).result!.task
      .id;
    for (let i = 0; i < 10; i++)
      expect(
        (await rpc('CreateTaskPushNotificationConfig', { taskId, url: receiver.url(`/${i}`) })).result,
      ).toBeDefined();
    expect((await rpc('CreateTaskPushNotificationConfig', { taskId, url: receiver.url('/11') })).error?.code).toBe(
      -32602,
    );
    // Replacing one (same id) is no new config.
    const first = (await rpc<{ configs: Array<{ id: string }> }>('ListTaskPushNotificationConfigs', { taskId })).result!
      .configs[0];
    expect(
      (await rpc('CreateTaskPushNotificationConfig', { taskId, id: first.id, url: receiver.url('/again') })).result,
    ).toBeDefined();
    await rpc('CancelTask', { id: taskId });
  });

  it('retries a receiver that answers 503, then delivers, with the same event id on every attempt (spec §4.3.3)', async () => {
    let refusals = 2;
    receiver.respond = (_request, response) =>
      refusals-- > 0 ? response.writeHead(503).end() : response.writeHead(200).end();
    await rpc('SendMessage', {
      message: message('echo once'),
      configuration: { taskPushNotificationConfig: { url: receiver.url() } },
    });
    await eventually('a delivery after two refusals', () => receiver.received.length >= 4);
    const ids = receiver.received.map((r) => r.headers['x-a2a-event-id']);
    expect(ids.slice(0, 3)).toEqual([ids[0], ids[0], ids[0]]);
    expect(ids[3]).not.toBe(ids[0]);
  });

  it('retries a receiver that is down until it is up', async () => {
    // An agent of its own, patient enough (8 attempts, up to 200 ms apart) that a loaded machine opening the port late
    // cannot exhaust its attempts first; without the circuit breaker, which would skip the port for a minute after 5
    // refused connections (test/e2e/push/push-fairness covers it).
    const patient = await startConformanceAgent({
      push: {
        ...FAST_RETRIES,
        allow: '127.0.0.1/32',
        maxAttempts: 8,
        baseDelayMs: 50,
        maxDelayMs: 200,
        circuitBreaker: false,
      },
    });
    const port = await freePortOnLoopback();
    let late: Server | undefined;
    try {
      const sent = await rpcAt(patient)<{ task: { id: string } }>('SendMessage', {
        message: message('echo late'),
        configuration: { taskPushNotificationConfig: { url: `http://127.0.0.1:${port}/late` } },
      });
      expect(sent.result!.task).toBeDefined();
      // Let an attempt or two fail on the closed port, then open it.
      await new Promise((resolve) => setTimeout(resolve, 40));
      const bodies: string[] = [];
      late = await listen(port, (body) => bodies.push(body));
      await eventually('the late receiver to get the task and its COMPLETED status', () =>
        bodies.some((b) => b.includes('TASK_STATE_COMPLETED')),
      );
      expect(await patient.app.get(A2aPushDispatcher).deadLetters({ taskId: sent.result!.task.id })).toEqual([]);
    } finally {
      if (late) await new Promise((resolve) => late!.close(resolve));
      await patient.close();
    }
  });

  it('dead-letters an event a receiver refuses forever, after maxAttempts, and the task is not affected', async () => {
    receiver.respond = (_request, response) => response.writeHead(500).end();
    // A Slack-style URL: its secret is the path, which neither the log line nor the dead letter may show (spec §13.2).
    const warnings = jest.spyOn(Logger.prototype, 'warn');
    const sent = await rpc<{ task: { id: string; status: { state: string } } }>('SendMessage', {
      message: message('echo doomed'),
      configuration: { taskPushNotificationConfig: { url: receiver.url('/services/T0000/B0000/PATHs3cr3t') } },
    });
    expect(sent.result!.task.status.state).toBe('TASK_STATE_COMPLETED');
    const taskId = sent.result!.task.id;
    // Three events (the task, its echo, COMPLETED), three attempts each.
    await eventually('nine attempts', () => receiver.received.length >= 9, 5000);
    let letters: PushDeadLetter[] = [];
    for (let tries = 0; tries < 200 && letters.length < 3; tries++) {
      letters = await deadLetters(taskId);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(letters).toHaveLength(3);
    expect(receiver.received).toHaveLength(9);
    const shown = `http://127.0.0.1:${receiver.port}/services/…`;
    for (const letter of letters)
      expect(letter).toMatchObject({
        taskId,
        attempts: 3,
        lastStatus: 500,
        lastError: PushMessages.answered(shown, 500),
      });
    // This task's lines only: a delivery an earlier case left to a closed receiver may be dead-lettered meanwhile.
    const logged = warnings.mock.calls
      .map(([line]) => String(line))
      .filter((line) => line.includes('dead-lettered') && line.includes(taskId));
    warnings.mockRestore();
    expect(logged).toHaveLength(3);
    for (const line of logged) expect(line).toContain(shown);
    expect(JSON.stringify([logged, letters])).not.toContain('s3cr3t');
    expect((await rpc<{ status: { state: string } }>('GetTask', { id: taskId })).result!.status.state).toBe(
      'TASK_STATE_COMPLETED',
    );
  });

  it('keeps a receiver that never answers from slowing the task or another receiver', async () => {
    const stuck = await listenHanging();
    try {
      const slowSend = await rpc<{ task: { id: string; status: { state: string } } }>('SendMessage', {
        message: message('stream 3'),
        configuration: { taskPushNotificationConfig: { url: `http://127.0.0.1:${stuck.port}/stuck` } },
      });
      // The task itself finished at once, whatever its webhook does.
      expect(slowSend.result!.task.status.state).toBe('TASK_STATE_COMPLETED');
      await rpc('SendMessage', {
        message: message('stream 3'),
        configuration: { taskPushNotificationConfig: { url: receiver.url() } },
      });
      await eventually(
        'the other receiver to get its task to COMPLETED',
        () => receiver.received.some((r) => stateOf(bodyOf(r)) === 'TASK_STATE_COMPLETED'),
        3000,
      );
      // The stuck one got its first event and holds it: nothing after it was sent to it meanwhile (order per webhook).
      expect(stuck.requests()).toBeLessThanOrEqual(1);
    } finally {
      await stuck.close();
    }
  });

  it('refuses configs that break the webhook rules, with field violations and nothing stored (spec §13.2)', async () => {
    const taskId = (await rpc<{ task: { id: string } }>('SendMessage', { message: message('stays open') })).result!.task
      .id;
    const refused = async (config: object) => {
      const answer = await rpc('CreateTaskPushNotificationConfig', { taskId, ...config });
      expect(answer.error?.code).toBe(-32602);
      return answer.error!.data?.flatMap((detail) => detail.fieldViolations ?? []).map((v) => v.field);
    };
    expect(await refused({ url: 'https://169.254.169.254/latest' })).toEqual(['url']);
    expect(await refused({ url: 'https://10.0.0.1/' })).toEqual(['url']);
    // 169.254.169.254 written as one number: the WHATWG parser's form is what is checked.
    expect(await refused({ url: 'http://2852039166/' })).toEqual(['url']);
    expect(await refused({ url: 'https://[::ffff:a9fe:a9fe]/' })).toEqual(['url']);
    expect(
      await refused({ url: receiver.url(), authentication: { scheme: 'Bearer', credentials: 't\r\nX-Evil: 1' } }),
    ).toEqual(['authentication.credentials']);
    expect(await refused({ url: receiver.url(), authentication: { scheme: 'Bearer x' } })).toEqual([
      'authentication.scheme',
    ]);
    expect((await rpc<{ configs: unknown[] }>('ListTaskPushNotificationConfigs', { taskId })).result!.configs).toEqual(
      [],
    );
    // Inline: the same rules, before any task is created.
    const inline = await rpc('SendMessage', {
      message: message('echo x'),
      configuration: { taskPushNotificationConfig: { url: 'https://10.0.0.1/' } },
    });
    expect(inline.error?.code).toBe(-32602);
    expect(inline.error!.data?.flatMap((d) => d.fieldViolations ?? []).map((v) => v.field)).toEqual([
      'configuration.taskPushNotificationConfig.url',
    ]);
    await rpc('CancelTask', { id: taskId });
  });

  it('keeps an allowlisted address to allowedPorts: a config for another port is refused at Create and inline, nothing stored', async () => {
    const strict = await startConformanceAgent({
      push: { allow: '127.0.0.1/32', ...FAST_RETRIES, allowedPorts: [443, 8443] },
    });
    try {
      const strictRpc = rpcAt(strict);
      const taskId = (await strictRpc<{ task: { id: string } }>('SendMessage', { message: message('stays open') }))
        .result!.task.id;
      const created = await strictRpc('CreateTaskPushNotificationConfig', { taskId, url: receiver.url() });
      expect(created.error?.code).toBe(-32602);
      expect(created.error!.data?.flatMap((detail) => detail.fieldViolations ?? [])).toEqual([
        { field: 'url', description: PushMessages.urlPortRefused(receiver.port, 'ports 443, 8443') },
      ]);
      const inline = await strictRpc('SendMessage', {
        message: message('echo x'),
        configuration: { taskPushNotificationConfig: { url: receiver.url() } },
      });
      expect(inline.error?.code).toBe(-32602);
      expect(
        (await strictRpc<{ configs: unknown[] }>('ListTaskPushNotificationConfigs', { taskId })).result!.configs,
      ).toEqual([]);
      // A listed port is let through: the port is what was refused.
      expect(
        (await strictRpc('CreateTaskPushNotificationConfig', { taskId, url: 'http://127.0.0.1:8443/hook' })).result,
      ).toBeDefined();
      await strictRpc('CancelTask', { id: taskId });
    } finally {
      await strict.close();
    }
    expect(receiver.received).toHaveLength(0);
  });

  it('does not follow a redirect, even to an allowed address: a permanent failure, zero connections to its target', async () => {
    const trap = await WebhookTrap.start();
    try {
      receiver.respond = (_request, response) =>
        response.writeHead(302, { Location: `http://127.0.0.1:${trap.port}/trap` }).end();
      const sent = await rpc<{ task: { id: string } }>('SendMessage', {
        message: message('echo moved'),
        configuration: { taskPushNotificationConfig: { url: receiver.url() } },
      });
      const taskId = sent.result!.task.id;
      let letters: PushDeadLetter[] = [];
      for (let tries = 0; tries < 200 && letters.length < 3; tries++) {
        letters = await deadLetters(taskId);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(letters.map((letter) => [letter.attempts, letter.lastStatus])).toEqual([
        [1, 302],
        [1, 302],
        [1, 302],
      ]);
      await trap.settled();
      expect(trap.connections).toBe(0);
    } finally {
      await trap.stop();
    }
  });

  it("keeps each owner's configs to that owner", async () => {
    await agent.close();
    agent = await startConformanceAgent({
      push: { allow: '127.0.0.1/32', ...FAST_RETRIES },
      security: { apiKeys: { alice: 'key-a', bob: 'key-b' } },
    });
    const alice = rpcAt(agent, { 'X-API-Key': 'key-a' });
    const bob = rpcAt(agent, { 'X-API-Key': 'key-b' });
    const taskId = (await alice<{ task: { id: string } }>('SendMessage', { message: message('stays open') })).result!
      .task.id;
    const id = (await alice<{ id: string }>('CreateTaskPushNotificationConfig', { taskId, url: receiver.url() }))
      .result!.id;
    expect((await bob('GetTaskPushNotificationConfig', { taskId, id })).error?.code).toBe(-32001);
    expect((await bob('ListTaskPushNotificationConfigs', { taskId })).error?.code).toBe(-32001);
    expect((await bob('CreateTaskPushNotificationConfig', { taskId, url: receiver.url('/bob') })).error?.code).toBe(
      -32001,
    );
    expect((await bob('DeleteTaskPushNotificationConfig', { taskId, id })).error?.code).toBe(-32001);
    expect((await alice('GetTaskPushNotificationConfig', { taskId, id })).result).toMatchObject({
      id,
      url: receiver.url(),
    });
    await alice('CancelTask', { id: taskId });
    rpc = alice;
  });
});

describe('the SSRF guard at connect time', () => {
  let agent: RunningAgent;
  let trap: WebhookTrap;

  beforeAll(async () => {
    trap = await WebhookTrap.start();
    // No allowlist: a name that resolves to loopback passes the create-time rules (it is a name) and must be stopped
    // when the agent connects; the DNS answer is the test's.
    agent = await startConformanceAgent({
      push: { ...FAST_RETRIES, allowHttp: true, resolveHost: async () => [{ address: '127.0.0.1', family: 4 }] },
    });
  });
  afterAll(async () => {
    await agent.close();
    await trap.stop();
  });

  it('refuses a host name that resolves to 127.0.0.1: zero connections, dead-lettered at once, no retry', async () => {
    const rpc = rpcAt(agent);
    const sent = await rpc<{ task: { id: string } }>('SendMessage', {
      message: message('echo rebinding'),
      configuration: { taskPushNotificationConfig: { url: `http://webhook.example:${trap.port}/hook` } },
    });
    const taskId = sent.result!.task.id;
    const dispatcher = agent.app.get(A2aPushDispatcher);
    let letters: PushDeadLetter[] = [];
    // The task, its echo and COMPLETED: each refused once, for good.
    for (let tries = 0; tries < 200 && letters.length < 3; tries++) {
      letters = await dispatcher.deadLetters({ taskId });
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(letters).toHaveLength(3);
    for (const letter of letters) expect(letter.attempts).toBe(1);
    await trap.settled();
    expect(trap.connections).toBe(0);
  });

  it('refuses loopback written as an address, plain or IPv4-mapped, when the config is created (spec §13.2)', async () => {
    const rpc = rpcAt(agent);
    const taskId = (await rpc<{ task: { id: string } }>('SendMessage', { message: message('stays open') })).result!.task
      .id;
    for (const url of [
      `http://127.0.0.1:${trap.port}/`,
      `http://[::ffff:127.0.0.1]:${trap.port}/`,
      `http://localhost:${trap.port}/`,
    ]) {
      expect({ url, code: (await rpc('CreateTaskPushNotificationConfig', { taskId, url })).error?.code }).toEqual({
        url,
        code: -32602,
      });
    }
    await rpc('CancelTask', { id: taskId });
    await trap.settled();
    expect(trap.connections).toBe(0);
  });
});

/** A webhook that reads each request and never answers: every delivery to it waits for its timeout. */
async function listenHanging(): Promise<{ port: number; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const server = createServer((request) => {
    requests++;
    request.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests: () => requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function freePortOnLoopback(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function listen(port: number, onBody: (body: string) => void): Promise<Server> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      onBody(Buffer.concat(chunks).toString());
      response.writeHead(204).end();
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}
