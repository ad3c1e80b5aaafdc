import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { StatusOrArtifactEvent } from '../bus/event-bus.js';
import { A2aMessages } from '../a2a.messages.js';
import { AgentCardService } from '../card/agent-card.service.js';
import type { TaskScope } from '../context/call-context.js';
import { ObservabilityMessages } from '../observability/observability.messages.js';
import { openTelemetryApi } from '../observability/otel-api.js';
import type { AgentCard, Message, Task } from '../protocol/a2a.types.js';
import { A2A_AUDIT_SINK, type A2aAuditAgent, type A2aAuditRecord, type A2aAuditRecordBase, type A2aAuditSink } from './a2a-audit.sink.js';
import { auditDigestOf, partKindsOf } from './audit-digest.js';
import { A2aLoggerAuditSink } from './logger-audit.sink.js';

/** At most one log line per this many ms about a failing sink; the failures in between are counted in the next one. */
const FAILURE_REPORT_INTERVAL_MS = 10_000;

/** A record without what every record says (`base`): its kind and what that kind says. */
type RecordFields<T extends A2aAuditRecord = A2aAuditRecord> = T extends A2aAuditRecord ? Omit<T, keyof A2aAuditRecordBase> : never;

/**
 * The inbound audit trail: turns what the engine commits (a task's creation with its first message, each later
 * message, each status and artifact event) into {@link A2aAuditRecord}s for the sink. Without a sink every method
 * returns at its first line, so the trail costs nothing; nothing it does (a digest, a sink's error or rejection)
 * reaches the task.
 */
@Injectable()
export class A2aAuditTrail {
  private readonly logger = new Logger('A2aAudit');
  /** Whether a sink takes records. */
  readonly enabled: boolean;
  private readonly includeContent: boolean;
  private agentOfCard?: { card: AgentCard; agent: A2aAuditAgent };
  private lastFailureReport = -Infinity;
  private unreportedFailures = 0;

  constructor(
    private readonly cards: AgentCardService,
    @Optional() @Inject(A2A_AUDIT_SINK) private readonly sink: A2aAuditSink | null = null,
  ) {
    this.enabled = sink !== null && sink !== undefined;
    this.includeContent = sink?.includeContent === true;
  }

  /** A task was created: the message that created it, the state it was created in, and its first artifact if any. */
  taskCreated(task: Task, scope: TaskScope, message: Message, first: StatusOrArtifactEvent): void {
    if (!this.enabled) return;
    this.guarded(() => {
      const base = this.base(task.id, task.contextId, scope);
      this.emit(base, this.messageFields(message));
      this.emit(base, { kind: 'state', state: task.status.state, ...statusMessageIdOf(task.status.message) });
      if ('artifactUpdate' in first) this.emit(base, this.artifactFields(first));
    });
  }

  /** A follow-up message joined the task. */
  messageReceived(taskId: string, contextId: string, message: Message, scope: TaskScope): void {
    if (!this.enabled) return;
    this.guarded(() => this.emit(this.base(taskId, contextId, scope), this.messageFields(message)));
  }

  /** A status or artifact event was committed. */
  committed(taskId: string, scope: TaskScope, event: StatusOrArtifactEvent): void {
    if (!this.enabled) return;
    this.guarded(() => {
      if ('statusUpdate' in event) {
        const { contextId, status } = event.statusUpdate;
        this.emit(this.base(taskId, contextId, scope), { kind: 'state', state: status.state, ...statusMessageIdOf(status.message) });
      } else {
        this.emit(this.base(taskId, event.artifactUpdate.contextId, scope), this.artifactFields(event));
      }
    });
  }

  private base(taskId: string, contextId: string, scope: TaskScope): A2aAuditRecordBase {
    const api = openTelemetryApi();
    const span = api?.trace.getSpanContext(api.context.active());
    const traced = span !== undefined && api!.trace.isSpanContextValid(span);
    return {
      direction: 'inbound',
      timestamp: new Date().toISOString(),
      ...(traced ? { traceId: span.traceId, spanId: span.spanId } : {}),
      taskId,
      contextId,
      principalId: scope.owner,
      tenant: scope.tenant,
      agent: this.agent(),
    };
  }

  private messageFields(message: Message): RecordFields<Extract<A2aAuditRecord, { kind: 'message' }>> {
    return {
      kind: 'message',
      messageId: message.messageId,
      role: message.role,
      partKinds: partKindsOf(message.parts),
      ...(this.includeContent ? { parts: message.parts } : {}),
    };
  }

  private artifactFields(event: Extract<StatusOrArtifactEvent, { artifactUpdate: unknown }>): RecordFields<Extract<A2aAuditRecord, { kind: 'artifact' }>> {
    const { artifact, append, lastChunk } = event.artifactUpdate;
    const digest = auditDigestOf(artifact.parts);
    return {
      kind: 'artifact',
      artifactId: artifact.artifactId,
      ...(artifact.name !== undefined ? { name: artifact.name } : {}),
      append: append === true,
      lastChunk: lastChunk === true,
      partKinds: partKindsOf(artifact.parts),
      sha256: digest.sha256,
      ...(digest.canonical ? {} : { canonical: false as const }),
      ...(this.includeContent ? { parts: artifact.parts } : {}),
    };
  }

  /** The card as served now: its version, and the key ids of its signatures (read once per card). */
  private agent(): A2aAuditAgent {
    const card = this.cards.card;
    if (this.agentOfCard?.card !== card) this.agentOfCard = { card, agent: agentOf(card) };
    return this.agentOfCard.agent;
  }

  private emit(base: A2aAuditRecordBase, fields: RecordFields): void {
    const record = { ...base, ...fields } as A2aAuditRecord;
    try {
      const result = this.sink!.record(record);
      if (result && typeof result.then === 'function') result.then(undefined, (error: unknown) => this.failed(error));
    } catch (error) {
      this.failed(error);
    }
  }

  /** Whatever goes wrong while making records is logged, never thrown into the commit that triggered it. */
  private guarded(work: () => void): void {
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
    this.logger.error(ObservabilityMessages.auditSinkFailed(error, this.unreportedFailures), error instanceof Error ? error.stack : undefined);
    this.lastFailureReport = now;
    this.unreportedFailures = 0;
  }
}

function statusMessageIdOf(message: Message | undefined): { statusMessageId?: string } {
  return message ? { statusMessageId: message.messageId } : {};
}

/** `card.version`, and the `kid` in the protected header of each signature. */
function agentOf(card: AgentCard): A2aAuditAgent {
  const kids = (card.signatures ?? []).map((signature) => kidOf(signature.protected)).filter((kid): kid is string => kid !== undefined);
  return kids.length > 0 ? { cardVersion: card.version, signingKeyIds: [...new Set(kids)] } : { cardVersion: card.version };
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
 * The sink option `audit` asks for: `true` the logger sink, a sink of your own, or none (`false`, unset).
 *
 * @throws Error when `audit` is something else: a typo would otherwise turn the trail off without a word.
 */
export function auditSinkOf(audit: A2aAuditSink | boolean | undefined): A2aAuditSink | null {
  if (audit === undefined || audit === false) return null;
  if (audit === true) return new A2aLoggerAuditSink();
  if (typeof (audit as Partial<A2aAuditSink> | null)?.record !== 'function') {
    throw new Error(A2aMessages.invalidOption('audit', audit, 'true, false, or an object with a record(record) method (A2aAuditSink)'));
  }
  return audit;
}
