import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Logger, Module, type INestApplication } from '@nestjs/common';
import canonicalize from 'canonicalize';
import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  A2aModule,
  A2aSkillHandler,
  AgentSkill,
  artifact,
  cardSigningKeyFromPem,
  complete,
  requireInput,
  working,
  type A2aModuleOptions,
  type SkillContext,
  type SkillEvent,
} from '../../../libs/a2a/src/index.js';
import { A2A_AUDIT_SINK, type A2aAuditRecord, type A2aAuditSink } from '../../../libs/a2a/src/audit/a2a-audit.sink.js';
import { Test } from '@nestjs/testing';
import { createTestApplication, startTestApp } from '../../fixtures/test-app.js';

/**
 * The audit trail of inbound delegations, over HTTP+JSON: one task's records in order (its message, WORKING, its
 * artifact with the SHA-256 of its parts' RFC 8785 form, COMPLETED), per-chunk digests, follow-ups, the signed
 * card's key id, the logger sink of `audit: true`, and sinks that throw or reject, which never touch the task.
 */

const DATA_PARTS = [
  { data: { b: 2, a: [1, 'é', { z: null, y: true }] }, mediaType: 'application/json' },
  { text: 'and some text' },
];

/** `plain`: WORKING, a text and data artifact, COMPLETED. `chunks`: three chunks of one artifact. `ask`: INPUT_REQUIRED, then done. */
@AgentSkill({ id: 'audited', name: 'Audited', description: 'Audit tests', tags: ['test'], default: true })
class AuditedSkill extends A2aSkillHandler {
  async *handle(ctx: SkillContext): AsyncIterable<SkillEvent> {
    if (ctx.text === 'ask') return yield requireInput('Which one?');
    yield working('On it');
    if (ctx.text === 'chunks') {
      for (const [index, text] of ['one ', 'two ', 'three'].entries()) {
        yield artifact(text, { artifactId: 'story', name: 'story', append: index > 0, lastChunk: index === 2 });
      }
    } else {
      yield artifact(DATA_PARTS, { artifactId: 'result', name: 'result' });
    }
    yield complete();
  }
}

async function startAuditedApp(options: Partial<A2aModuleOptions>): Promise<{ app: INestApplication; url: string }> {
  @Module({
    imports: [
      A2aModule.forRoot({ card: { name: 'Audited agent', description: 'Audit tests', version: '2.3.4' }, ...options }),
    ],
    providers: [AuditedSkill],
  })
  class AuditedModule {}
  return startTestApp(AuditedModule);
}

const userMessage = (text: string, extra: Record<string, unknown> = {}) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});

async function send(
  url: string,
  message: Record<string, unknown>,
  tenant = '',
): Promise<{ id: string; contextId: string; status: { state: string } }> {
  const response = await fetch(`${url}/a2a/rest${tenant ? `/${tenant}` : ''}/message:send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { task: { id: string; contextId: string; status: { state: string } } }).task;
}

const sha256OfJcs = (value: unknown) => createHash('sha256').update(canonicalize(value)!, 'utf8').digest('hex');

describe('audit trail', () => {
  const records: A2aAuditRecord[] = [];
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await startAuditedApp({ audit: { record: (record) => void records.push(record) } }));
  });
  afterAll(() => app?.close());

  /** The records of one task, once its last one (COMPLETED) is in. */
  async function recordsOf(taskId: string, last = 'TASK_STATE_COMPLETED'): Promise<A2aAuditRecord[]> {
    for (let i = 0; i < 50 && !records.some((r) => r.taskId === taskId && r.kind === 'state' && r.state === last); i++)
      await sleep(10);
    return records.filter((record) => record.taskId === taskId);
  }

  it("records one task's message, WORKING, artifact (with the SHA-256 of its parts' JCS form) and COMPLETED, in order", async () => {
    const message = userMessage('plain');
    const task = await send(url, message, 'acme');
    const trail = await recordsOf(task.id);
    expect(trail.map((r) => (r.kind === 'state' ? r.state : r.kind))).toEqual([
      'message',
      'TASK_STATE_WORKING',
      'artifact',
      'TASK_STATE_COMPLETED',
    ]);
    for (const record of trail) {
      expect(record).toMatchObject({
        direction: 'inbound',
        taskId: task.id,
        contextId: task.contextId,
        principalId: 'anonymous',
        tenant: 'acme',
        agent: { cardVersion: '2.3.4' },
      });
      expect(record.agent.signingKeyIds).toBeUndefined();
      expect(Number.isNaN(Date.parse(record.timestamp))).toBe(false);
      expect(record.traceId).toBeUndefined();
    }
    const [received, working, produced] = trail;
    expect(received).toEqual(
      expect.objectContaining({
        kind: 'message',
        messageId: message.messageId,
        role: 'ROLE_USER',
        partKinds: ['text'],
      }),
    );
    expect(received).not.toHaveProperty('parts');
    expect(working).toEqual(expect.objectContaining({ kind: 'state', statusMessageId: expect.any(String) }));
    expect(produced).toEqual(
      expect.objectContaining({
        kind: 'artifact',
        artifactId: 'result',
        name: 'result',
        append: false,
        lastChunk: false,
        partKinds: ['data', 'text'],
        sha256: sha256OfJcs(DATA_PARTS),
      }),
    );
    expect(produced).not.toHaveProperty('canonical');
    expect(JSON.stringify(trail)).not.toContain('and some text');
  });

  it('hashes appended chunks one by one, each over its own parts', async () => {
    const task = await send(url, userMessage('chunks'));
    const chunks = (await recordsOf(task.id)).filter((r) => r.kind === 'artifact');
    expect(chunks.map((r) => r.kind === 'artifact' && [r.append, r.lastChunk, r.sha256])).toEqual(
      ['one ', 'two ', 'three'].map((text, index) => [index > 0, index === 2, sha256OfJcs([{ text }])]),
    );
  });

  it("records a follow-up's message when it joins the task, and each state it leads to", async () => {
    const asked = await send(url, userMessage('ask'));
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const followUp = userMessage('plain', { taskId: asked.id });
    await send(url, followUp);
    const trail = await recordsOf(asked.id);
    expect(trail.map((r) => (r.kind === 'state' ? r.state : r.kind === 'message' ? r.messageId : r.kind))).toEqual([
      expect.any(String),
      'TASK_STATE_INPUT_REQUIRED',
      followUp.messageId,
      'TASK_STATE_WORKING',
      'artifact',
      'TASK_STATE_COMPLETED',
    ]);
  });
});

describe('audit sinks', () => {
  it('a sink that throws, or rejects, changes nothing for the task; its failures are logged, at most once per interval', async () => {
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      for (const sink of [
        {
          record: () => {
            throw new Error('sink down');
          },
        },
        { record: () => Promise.reject(new Error('sink down')) },
      ] satisfies A2aAuditSink[]) {
        const { app, url } = await startAuditedApp({ audit: sink });
        try {
          const task = await send(url, userMessage('chunks'));
          expect(task.status.state).toBe('TASK_STATE_COMPLETED');
          const got = (await (await fetch(`${url}/a2a/rest/tasks/${task.id}`)).json()) as {
            artifacts: Array<{ parts: Array<{ text: string }> }>;
          };
          expect(got.artifacts[0].parts.map((part) => part.text).join('')).toBe('one two three');
        } finally {
          await app.close();
        }
      }
      const reports = errors.mock.calls.filter(([message]) => String(message).startsWith('The audit sink failed'));
      // Six records each time, one line per sink (each app has its own trail).
      expect(reports).toHaveLength(2);
    } finally {
      errors.mockRestore();
    }
  });

  it('audit: true writes one JSON line per record on the A2aAudit logger, without content', async () => {
    const lines: string[] = [];
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(function (this: Logger, message: unknown): void {
      if ((this as unknown as { context?: string }).context === 'A2aAudit') lines.push(String(message));
    });
    try {
      const { app, url } = await startAuditedApp({ audit: true });
      try {
        const task = await send(url, userMessage('plain'));
        for (let i = 0; i < 50 && !lines.some((line) => line.includes('TASK_STATE_COMPLETED')); i++) await sleep(10);
        const parsed = lines
          .map((line) => JSON.parse(line) as A2aAuditRecord)
          .filter((record) => record.taskId === task.id);
        expect(parsed.map((record) => record.kind)).toEqual(['message', 'state', 'artifact', 'state']);
        expect(lines.join('\n')).not.toContain('and some text');
      } finally {
        await app.close();
      }
    } finally {
      log.mockRestore();
    }
  });

  it('names the key ids of a signed card, and gives a sink with includeContent the parts', async () => {
    const records: A2aAuditRecord[] = [];
    const key = await cardSigningKeyFromPem(
      generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    );
    const { app, url } = await startAuditedApp({
      cardSigning: { keys: [key] },
      audit: { includeContent: true, record: (record) => void records.push(record) },
    });
    try {
      const task = await send(url, userMessage('plain'));
      for (let i = 0; i < 50 && records.filter((r) => r.taskId === task.id).length < 4; i++) await sleep(10);
      const trail = records.filter((r) => r.taskId === task.id);
      expect(new Set(trail.map((r) => JSON.stringify(r.agent)))).toEqual(
        new Set([JSON.stringify({ cardVersion: '2.3.4', signingKeyIds: [key.kid] })]),
      );
      expect(trail.find((r) => r.kind === 'message')).toHaveProperty('parts', [{ text: 'plain' }]);
      expect(trail.find((r) => r.kind === 'artifact')).toHaveProperty('parts', DATA_PARTS);
    } finally {
      await app.close();
    }
  });

  it('is off by default, and A2A_AUDIT_SINK is then null', async () => {
    const { app, url } = await startAuditedApp({});
    try {
      expect(app.get(A2A_AUDIT_SINK)).toBeNull();
      expect((await send(url, userMessage('plain'))).status.state).toBe('TASK_STATE_COMPLETED');
    } finally {
      await app.close();
    }
  });

  it('takes its sink from A2A_AUDIT_SINK, which a test may override', async () => {
    const records: A2aAuditRecord[] = [];
    @Module({
      imports: [A2aModule.forRoot({ card: { name: 'Audited agent', description: 'Audit tests' } })],
      providers: [AuditedSkill],
    })
    class OverriddenModule {}
    const moduleRef = await Test.createTestingModule({ imports: [OverriddenModule] })
      .overrideProvider(A2A_AUDIT_SINK)
      .useValue({ record: (record: A2aAuditRecord) => void records.push(record) })
      .compile();
    const app = createTestApplication(moduleRef);
    await app.listen(0, '127.0.0.1');
    try {
      const task = await send((await app.getUrl()).replace('[::1]', '127.0.0.1'), userMessage('plain'));
      for (let i = 0; i < 50 && records.length < 4; i++) await sleep(10);
      expect(records.map((record) => record.taskId)).toEqual([task.id, task.id, task.id, task.id]);
    } finally {
      await app.close();
    }
  });

  it('refuses an audit option that is no sink, at bootstrap', async () => {
    await expect(startAuditedApp({ audit: { write: () => undefined } as unknown as A2aAuditSink })).rejects.toThrow(
      /option audit/,
    );
  });
});
