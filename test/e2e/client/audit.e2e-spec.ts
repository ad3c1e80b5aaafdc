import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Injectable, Logger, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import canonicalize from 'canonicalize';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { lastValueFrom, toArray } from 'rxjs';
import {
  A2aAgentClient,
  A2aClient,
  A2aClientModule,
  A2aClientOptionsError,
  type AgentCard,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
} from '../../../libs/a2a/src/client.js';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  cardSigningKeyFromPem,
  complete,
  type CardSigningKey,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import type { A2aAuditRecord, A2aAuditSink } from '../../../libs/a2a/src/audit/a2a-audit.sink.js';
import { startConformanceAgent, type RunningAgent } from '../../fixtures/conformance-agent.server.js';
import { CLIENT_BINDINGS, clientFor, LOOPBACK, within } from './fixtures/client-targets.js';

/**
 * The client's outbound audit trail (option `audit`) against our conformance agent with a signed card: per
 * delegation, on every binding, the message sent, the agent's messages, each state seen once, each artifact (and each
 * streamed chunk) with the SHA-256 of its parts' RFC 8785 form, recomputed here with `canonicalize`; the card's
 * version and key ids (verified or not); sinks that throw or reject, which never touch the call; `audit: true`; and
 * A2aClientModule, which uses the app's A2A_AUDIT_SINK unless told otherwise.
 */

let agent: RunningAgent;
let signingKey: CardSigningKey;
let card: AgentCard;
const clients: A2aAgentClient[] = [];

beforeAll(async () => {
  signingKey = await cardSigningKeyFromPem(
    generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
  );
  agent = await startConformanceAgent({ withGrpc: true, push: false, cardSigningKey: signingKey });
  card = (await (await fetch(`${agent.url}/.well-known/agent-card.json`)).json()) as AgentCard;
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await agent?.close();
});

const sha256OfJcs = (parts: readonly Part[]) => createHash('sha256').update(canonicalize(parts)!, 'utf8').digest('hex');

/** A client and the records its sink got. */
function audited(
  binding: (typeof CLIENT_BINDINGS)[number],
  options: Parameters<typeof clientFor>[2] = {},
): { client: A2aAgentClient; records: A2aAuditRecord[] } {
  const records: A2aAuditRecord[] = [];
  const client = clientFor(agent.url, binding, {
    audit: { record: (record) => void records.push(record) },
    ...options,
  });
  clients.push(client);
  return { client, records };
}

/** Each record in short: `message ROLE_USER`, `state TASK_STATE_COMPLETED`, `artifact <name>`. */
const summary = (records: readonly A2aAuditRecord[]) =>
  records.map((record) =>
    record.kind === 'message'
      ? `message ${record.role}`
      : record.kind === 'state'
        ? `state ${record.state}`
        : `artifact ${record.name ?? record.artifactId}`,
  );

describe.each(CLIENT_BINDINGS)('outbound audit over %s', (binding) => {
  it('send: the message sent, the artifact with its digest, the state; what every record says', async () => {
    const { client, records } = audited(binding);
    const message = { messageId: `audit-${binding}-${Date.now()}`, parts: [{ text: 'echo audited' }] };
    const task = (await client.send(message)) as Task;
    expect(summary(records)).toEqual(['message ROLE_USER', 'artifact echo', 'state TASK_STATE_COMPLETED']);
    const [sent, produced] = records;
    expect(sent).toMatchObject({ messageId: message.messageId, partKinds: ['text'] });
    expect(sent).not.toHaveProperty('parts');
    expect(produced).toMatchObject({
      artifactId: task.artifacts![0].artifactId,
      append: false,
      lastChunk: false,
      partKinds: ['text'],
      sha256: sha256OfJcs(task.artifacts![0].parts),
    });
    for (const record of records) {
      expect(record).toEqual(
        expect.objectContaining({
          direction: 'outbound',
          taskId: task.id,
          contextId: task.contextId,
          principalId: 'anonymous',
          tenant: '',
          agent: { cardVersion: card.version, signingKeyIds: [signingKey.kid] },
        }),
      );
      expect(Number.isNaN(Date.parse(record.timestamp))).toBe(false);
      // No tracer provider in this file: no trace ids.
      expect(record.traceId).toBeUndefined();
    }
  });

  it('stream: each chunk hashed alone, in order, and each state the stream reported', async () => {
    const { client, records } = audited(binding);
    const events = await within(lastValueFrom(client.stream('stream 3').pipe(toArray())), 10_000);
    const chunks = events.flatMap((event) => ('artifactUpdate' in event ? [event.artifactUpdate] : []));
    expect(chunks).toHaveLength(3);
    const artifacts = records.filter((record) => record.kind === 'artifact');
    expect(artifacts.map((record) => [record.append, record.lastChunk, record.sha256])).toEqual(
      chunks.map((chunk) => [chunk.append === true, chunk.lastChunk === true, sha256OfJcs(chunk.artifact.parts)]),
    );
    const states = records.flatMap((record) => (record.kind === 'state' ? [record.state] : []));
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
    expect(states).toContain('TASK_STATE_WORKING');
    expect(records[0]).toMatchObject({ kind: 'message', role: 'ROLE_USER' });
    expect(new Set(records.map((record) => record.taskId))).toEqual(new Set([taskOf(events).id]));
  });

  it("a direct reply: the message sent and the agent's, under the reply's context", async () => {
    const { client, records } = audited(binding);
    const reply = (await client.send('message hi there')) as Message;
    expect(summary(records)).toEqual(['message ROLE_USER', 'message ROLE_AGENT']);
    expect(records[1]).toMatchObject({
      messageId: reply.messageId,
      contextId: reply.contextId ?? '',
      taskId: reply.taskId ?? '',
    });
  });
});

function taskOf(events: StreamResponse[]): Task {
  const first = events.find((event) => 'task' in event);
  return (first as { task: Task }).task;
}

describe('outbound audit of a conversation', () => {
  it("INPUT_REQUIRED with the agent's question, the follow-up, and nothing again for a GetTask that shows nothing new", async () => {
    const { client, records } = audited('JSONRPC');
    const asked = (await client.send('ask')) as Task;
    expect(summary(records)).toEqual(['message ROLE_USER', 'message ROLE_AGENT', 'state TASK_STATE_INPUT_REQUIRED']);
    expect(records[2]).toMatchObject({ statusMessageId: asked.status.message!.messageId });
    expect(records[1]).toMatchObject({ messageId: asked.status.message!.messageId });

    const followUp = {
      messageId: `follow-up-${Date.now()}`,
      taskId: asked.id,
      contextId: asked.contextId,
      parts: [{ text: '42' }],
    };
    const done = (await client.send(followUp)) as Task;
    expect(summary(records.slice(3))).toEqual(['message ROLE_USER', 'artifact answer', 'state TASK_STATE_COMPLETED']);
    expect(records[3]).toMatchObject({ messageId: followUp.messageId, taskId: asked.id });
    expect(records[4]).toMatchObject({
      sha256: sha256OfJcs(done.artifacts!.find((artifact) => artifact.name === 'answer')!.parts),
    });

    const before = records.length;
    await client.getTask(asked.id);
    expect(records).toHaveLength(before);
  });

  it('a card verified against pinned keys: the key that verified it, and verified: true', async () => {
    const { client, records } = audited('HTTP+JSON', {
      cardVerification: { keys: [{ ...signingKey.publicJwk, kid: signingKey.kid, alg: signingKey.alg }] },
    });
    await client.send('echo verified');
    expect(records.length).toBeGreaterThan(0);
    for (const record of records)
      expect(record.agent).toEqual({ cardVersion: card.version, signingKeyIds: [signingKey.kid], verified: true });
  });

  it('a sink with includeContent gets the parts; the principal is the configured identity', async () => {
    const records: A2aAuditRecord[] = [];
    const client = clientFor(agent.url, 'JSONRPC', {
      audit: { includeContent: true, record: (record) => void records.push(record) },
      credentials: { basic: { username: 'orchestrator', password: 'unused by this agent' } },
    });
    clients.push(client);
    const task = (await client.send('data')) as Task;
    expect(records.find((record) => record.kind === 'message')).toHaveProperty('parts', [{ text: 'data' }]);
    expect(records.find((record) => record.kind === 'artifact')).toHaveProperty('parts', task.artifacts![0].parts);
    expect(records.find((record) => record.kind === 'artifact')).toMatchObject({ partKinds: ['data', 'raw', 'url'] });
    expect(new Set(records.map((record) => record.principalId))).toEqual(new Set(['orchestrator']));
  });
});

describe('outbound audit sinks', () => {
  it('a sink that throws, or rejects, changes nothing for the calls; failures are logged at most once per interval', async () => {
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const sinks: A2aAuditSink[] = [
        {
          record: () => {
            throw new Error('sink down');
          },
        },
        { record: () => Promise.reject(new Error('sink down')) },
      ];
      for (const sink of sinks) {
        const client = clientFor(agent.url, 'HTTP+JSON', { audit: sink });
        clients.push(client);
        expect(((await client.send('echo still works')) as Task).status.state).toBe('TASK_STATE_COMPLETED');
        const events = await within(lastValueFrom(client.stream('stream 2').pipe(toArray())), 10_000);
        expect(events.filter((event) => 'artifactUpdate' in event)).toHaveLength(2);
      }
      await new Promise((resolve) => setImmediate(resolve));
      const reports = errors.mock.calls.filter(([message]) => String(message).startsWith('The audit sink failed'));
      expect(reports).toHaveLength(2);
    } finally {
      errors.mockRestore();
    }
  });

  it('audit: true writes one JSON line per record on the A2aAudit logger; anything else but false is refused', async () => {
    const lines: string[] = [];
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(function (this: Logger, message: unknown): void {
      if ((this as unknown as { context?: string }).context === 'A2aAudit') lines.push(String(message));
    });
    try {
      const client = clientFor(agent.url, 'JSONRPC', { audit: true });
      clients.push(client);
      const task = (await client.send('echo logged')) as Task;
      const parsed = lines.map((line) => JSON.parse(line) as A2aAuditRecord);
      expect(parsed.map((record) => [record.direction, record.kind, record.taskId])).toEqual([
        ['outbound', 'message', task.id],
        ['outbound', 'artifact', task.id],
        ['outbound', 'state', task.id],
      ]);
    } finally {
      log.mockRestore();
    }
    expect(() => new A2aAgentClient({ cardUrl: agent.url, audit: { log: () => undefined } as never })).toThrow(
      A2aClientOptionsError,
    );
  });
});

describe('A2aClientModule and the app audit sink', () => {
  @Injectable()
  class Probe {
    constructor(readonly a2a: A2aClient) {}
  }

  /** The app is an agent too (A2aModule wants a skill); it delegates through the client. */
  @AgentSkill({ id: 'delegate', name: 'Delegate', description: 'Delegates', tags: ['test'], default: true })
  class DelegateSkill extends A2aSkillHandler {
    async *handle(): AsyncIterable<SkillEvent> {
      yield complete();
    }
  }

  async function appWith(sink: A2aAuditSink, clientOptions: Parameters<typeof A2aClientModule.register>[0]) {
    @Module({
      imports: [
        A2aModule.forRoot({ card: { name: 'Delegating app', description: 'Has an audit sink' }, audit: sink }),
        A2aClientModule.register(clientOptions),
      ],
      providers: [Probe, DelegateSkill],
    })
    class AppModule {}
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    await moduleRef.init();
    return moduleRef;
  }

  it("uses A2A_AUDIT_SINK of the app (A2aModule's audit) for every agent and for for(url), unless the options set audit", async () => {
    const appRecords: A2aAuditRecord[] = [];
    const ownRecords: A2aAuditRecord[] = [];
    const moduleRef = await appWith(
      { record: (record) => void appRecords.push(record) },
      {
        agents: {
          conformance: { cardUrl: agent.url, preferredTransports: ['JSONRPC'] },
          own: { cardUrl: agent.url, audit: { record: (record) => void ownRecords.push(record) } },
          silent: { cardUrl: agent.url, audit: false },
        },
        defaults: { network: LOOPBACK },
      },
    );
    try {
      const a2a = moduleRef.get(Probe).a2a;
      const first = (await a2a.agent('conformance').send('echo via the module')) as Task;
      const second = (await a2a.for(agent.url).send('echo via for')) as Task;
      await a2a.agent('own').send('echo own sink');
      await a2a.agent('silent').send('echo nothing');
      expect(new Set(appRecords.map((record) => record.taskId))).toEqual(new Set([first.id, second.id]));
      expect(appRecords.every((record) => record.direction === 'outbound')).toBe(true);
      expect(ownRecords.length).toBe(3);
    } finally {
      await moduleRef.close();
    }
  });

  it('defaults: { audit: false } declines the app sink', async () => {
    const appRecords: A2aAuditRecord[] = [];
    const moduleRef = await appWith(
      { record: (record) => void appRecords.push(record) },
      { agents: { conformance: { cardUrl: agent.url } }, defaults: { network: LOOPBACK, audit: false } },
    );
    try {
      await moduleRef.get(Probe).a2a.agent('conformance').send('echo unaudited');
      expect(appRecords).toEqual([]);
    } finally {
      await moduleRef.close();
    }
  });
});
