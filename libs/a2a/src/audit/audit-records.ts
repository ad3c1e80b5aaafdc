import { Logger } from '@nestjs/common';
import { ObservabilityMessages } from '../observability/observability.messages.js';
import type { AgentCard, Artifact, Message } from '../protocol/a2a.types.js';
import type {
  A2aArtifactAuditRecord,
  A2aAuditAgent,
  A2aAuditRecord,
  A2aAuditRecordBase,
  A2aAuditSink,
  A2aMessageAuditRecord,
} from './a2a-audit.sink.js';
import { auditDigestOf, partKindsOf } from './audit-digest.js';

/**
 * What the inbound trail (the server's) and the outbound one (the client's) share: the fields of each record kind, the
 * agent a card describes, and a sink caller that neither awaits nor lets a failure out.
 */

/** At most one log line per this many ms about a failing sink; the failures in between are counted in the next one. */
const FAILURE_REPORT_INTERVAL_MS = 10_000;

/** A record without what every record says (`base`): its kind and what that kind says. */
export type AuditRecordFields<T extends A2aAuditRecord = A2aAuditRecord> = T extends A2aAuditRecord
  ? Omit<T, keyof A2aAuditRecordBase>
  : never;

/** A message record's fields; `parts` only when the sink asks for content. */
export function messageAuditFields(
  message: Message,
  includeContent: boolean,
): AuditRecordFields<A2aMessageAuditRecord> {
  return {
    kind: 'message',
    messageId: message.messageId,
    role: message.role,
    partKinds: partKindsOf(message.parts),
    ...(includeContent ? { parts: message.parts } : {}),
  };
}

/** An artifact record's fields: the digest of the parts this event (or snapshot) carries. */
export function artifactAuditFields(
  artifact: Artifact,
  append: boolean,
  lastChunk: boolean,
  includeContent: boolean,
): AuditRecordFields<A2aArtifactAuditRecord> {
  const digest = auditDigestOf(artifact.parts);
  return {
    kind: 'artifact',
    artifactId: artifact.artifactId,
    ...(artifact.name !== undefined ? { name: artifact.name } : {}),
    append,
    lastChunk,
    partKinds: partKindsOf(artifact.parts),
    sha256: digest.sha256,
    ...(digest.canonical ? {} : { canonical: false as const }),
    ...(includeContent ? { parts: artifact.parts } : {}),
  };
}

/**
 * The agent a card describes: its `version`, and the `kid` in the protected header of each of its signatures. With
 * `verifiedKeyId` (the client verified the card against pinned keys), that key alone, and `verified: true`.
 */
export function auditAgentOf(card: AgentCard, verifiedKeyId?: string): A2aAuditAgent {
  if (verifiedKeyId !== undefined) return { cardVersion: card.version, signingKeyIds: [verifiedKeyId], verified: true };
  const kids = (card.signatures ?? [])
    .map((signature) => kidOf(signature.protected))
    .filter((kid): kid is string => kid !== undefined);
  return kids.length > 0
    ? { cardVersion: card.version, signingKeyIds: [...new Set(kids)] }
    : { cardVersion: card.version };
}

function kidOf(protectedHeader: string): string | undefined {
  try {
    const header = JSON.parse(Buffer.from(protectedHeader, 'base64url').toString('utf8')) as { kid?: unknown };
    return typeof header.kid === 'string' ? header.kid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Hands records to a sink without ever awaiting it: what `record` throws, and what its promise rejects with, is logged
 * (at most one line per 10 s, counting the others), never thrown into the caller's path.
 */
export class AuditSinkCaller {
  private readonly logger = new Logger('A2aAudit');
  private lastFailureReport = -Infinity;
  private unreportedFailures = 0;

  constructor(readonly sink: A2aAuditSink) {}

  get includeContent(): boolean {
    return this.sink.includeContent === true;
  }

  emit(base: A2aAuditRecordBase, fields: AuditRecordFields): void {
    const record = { ...base, ...fields } as A2aAuditRecord;
    try {
      const result = this.sink.record(record);
      if (result && typeof result.then === 'function') result.then(undefined, (error: unknown) => this.failed(error));
    } catch (error) {
      this.failed(error);
    }
  }

  /** Runs `work` (which makes records); whatever goes wrong in it is logged, never thrown. */
  guarded(work: () => void): void {
    try {
      work();
    } catch (error) {
      this.failed(error);
    }
  }

  private failed(error: unknown): void {
    const now = Date.now();
    if (now - this.lastFailureReport < FAILURE_REPORT_INTERVAL_MS) {
      this.unreportedFailures++;
      return;
    }
    this.logger.error(
      ObservabilityMessages.auditSinkFailed(error, this.unreportedFailures),
      error instanceof Error ? error.stack : undefined,
    );
    this.lastFailureReport = now;
    this.unreportedFailures = 0;
  }
}
