import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import type { A2aAuditRecord, A2aAuditSink } from '../../../libs/a2a/src/audit/a2a-audit.sink.js';
import { auditDigestOf, partKindsOf } from '../../../libs/a2a/src/audit/audit-digest.js';
import { A2aAuditTrail, auditSinkOf } from '../../../libs/a2a/src/audit/audit.trail.js';
import { A2aLoggerAuditSink } from '../../../libs/a2a/src/audit/logger-audit.sink.js';
import type { AgentCardService } from '../../../libs/a2a/src/card/agent-card.service.js';
import type { AgentCard, Message, Part, Task } from '../../../libs/a2a/src/protocol/a2a.types.js';

/** The audit trail's pieces: the artifact digest, the option, and a trail that never lets its sink reach the task. */

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const scope = { tenant: 'acme', owner: 'key:alice' };

/** A signature's protected header, base64url, as the signer writes it. */
const protectedHeader = (header: object) => Buffer.from(JSON.stringify(header)).toString('base64url');

function cardsServing(card: Partial<AgentCard>): AgentCardService {
  return { card: { version: '1.2.0', ...card } } as unknown as AgentCardService;
}

const message: Message = { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'secret words' }, { data: { a: 1 } }] };
const task: Task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' }, history: [message] };
const working = { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' as const } } };

describe('auditDigestOf', () => {
  it("is the SHA-256 of the parts' RFC 8785 form, whatever the key order", () => {
    const parts: Part[] = [
      { mediaType: 'application/json', data: { z: [1.5, 'ü', null], a: { y: true, b: -0 } } },
      { text: 'line\nbreak "quoted"' },
    ];
    const reordered: Part[] = [
      { data: { a: { b: 0, y: true }, z: [1.5, 'ü', null] }, mediaType: 'application/json' },
      { text: 'line\nbreak "quoted"' },
    ];
    expect(auditDigestOf(parts)).toEqual({ sha256: sha256(canonicalize(parts)!), canonical: true });
    expect(auditDigestOf(reordered).sha256).toBe(auditDigestOf(parts).sha256);
  });

  it('hashes the JSON.stringify form of parts JCS refuses (a lone surrogate), and says so', () => {
    const parts: Part[] = [{ text: 'half \ud800 a pair' }];
    expect(auditDigestOf(parts)).toEqual({ sha256: sha256(JSON.stringify(parts)), canonical: false });
  });

  it('names the kind of each part', () => {
    expect(partKindsOf([{ text: '' }, { raw: 'AA==' }, { url: 'https://x' }, { data: null }, { data: 0 }])).toEqual([
      'text',
      'raw',
      'url',
      'data',
      'data',
    ]);
  });
});

describe('option audit', () => {
  it('is off when unset or false, the logger sink when true, your sink as given', () => {
    expect(auditSinkOf(undefined)).toBeNull();
    expect(auditSinkOf(false)).toBeNull();
    expect(auditSinkOf(true)).toBeInstanceOf(A2aLoggerAuditSink);
    const sink: A2aAuditSink = { record: () => undefined };
    expect(auditSinkOf(sink)).toBe(sink);
  });

  it('refuses what is not a sink', () => {
    expect(() => auditSinkOf({ recrod: () => undefined } as unknown as A2aAuditSink)).toThrow(/option audit/);
    expect(() => auditSinkOf('yes' as unknown as boolean)).toThrow(/option audit/);
  });
});

describe('A2aAuditTrail', () => {
  it('without a sink does nothing at all (not even read the card)', () => {
    const trail = new A2aAuditTrail({} as AgentCardService, null);
    expect(trail.enabled).toBe(false);
    expect(() => trail.taskCreated(task, scope, message, working)).not.toThrow();
    expect(() => trail.committed('t1', scope, working)).not.toThrow();
  });

  it('records who delegated, to which card (its version and signing key ids), without content', () => {
    const records: A2aAuditRecord[] = [];
    const card = {
      signatures: [
        { protected: protectedHeader({ alg: 'EdDSA', kid: 'k1' }), signature: 'x' },
        { protected: protectedHeader({ alg: 'EdDSA', kid: 'k1' }), signature: 'y' },
        { protected: 'not json', signature: 'z' },
      ],
    };
    const trail = new A2aAuditTrail(cardsServing(card), { record: (record) => void records.push(record) });
    trail.taskCreated(task, scope, message, working);
    expect(records).toEqual([
      expect.objectContaining({
        kind: 'message',
        direction: 'inbound',
        taskId: 't1',
        contextId: 'c1',
        principalId: 'key:alice',
        tenant: 'acme',
        messageId: 'm1',
        role: 'ROLE_USER',
        partKinds: ['text', 'data'],
      }),
      expect.objectContaining({ kind: 'state', state: 'TASK_STATE_WORKING' }),
    ]);
    expect(records.map((record) => record.agent)).toEqual([
      { cardVersion: '1.2.0', signingKeyIds: ['k1'] },
      { cardVersion: '1.2.0', signingKeyIds: ['k1'] },
    ]);
    expect(JSON.stringify(records)).not.toContain('secret words');
  });

  it('records a task created by an artifact chunk with its state SUBMITTED and the chunk', () => {
    const records: A2aAuditRecord[] = [];
    const trail = new A2aAuditTrail(cardsServing({}), { record: (record) => void records.push(record) });
    const chunk = {
      artifactUpdate: {
        taskId: 't1',
        contextId: 'c1',
        artifact: { artifactId: 'a', parts: [{ text: 'x' }] },
        lastChunk: true,
      },
    };
    trail.taskCreated({ ...task, status: { state: 'TASK_STATE_SUBMITTED' } }, scope, message, chunk);
    expect(records.map((r) => r.kind)).toEqual(['message', 'state', 'artifact']);
    expect(records[2]).toMatchObject({
      artifactId: 'a',
      append: false,
      lastChunk: true,
      sha256: sha256('[{"text":"x"}]'),
    });
  });

  it('catches what a sink throws or rejects, and logs it at most once per interval, counting the rest', async () => {
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const throwing = new A2aAuditTrail(cardsServing({}), {
        record: () => {
          throw new Error('disk full');
        },
      });
      for (let i = 0; i < 3; i++) expect(() => throwing.committed('t1', scope, working)).not.toThrow();
      expect(errors).toHaveBeenCalledTimes(1);
      expect(errors.mock.calls[0][0]).toContain('disk full');

      const rejecting = new A2aAuditTrail(cardsServing({}), {
        record: () => Promise.reject(new Error('network down')),
      });
      rejecting.committed('t1', scope, working);
      await new Promise((resolve) => setImmediate(resolve));
      expect(errors).toHaveBeenCalledTimes(2);
      expect(errors.mock.calls[1][0]).toContain('network down');
    } finally {
      errors.mockRestore();
    }
  });

  it('never throws into the commit, even when making the record fails (the card is not served yet)', () => {
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const cards = {
        get card(): AgentCard {
          throw new Error('AgentCardService used before application bootstrap');
        },
      } as unknown as AgentCardService;
      const trail = new A2aAuditTrail(cards, { record: () => undefined });
      expect(() => trail.committed('t1', scope, working)).not.toThrow();
      expect(errors).toHaveBeenCalledTimes(1);
    } finally {
      errors.mockRestore();
    }
  });
});
