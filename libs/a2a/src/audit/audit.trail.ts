import { Inject, Injectable, Optional } from '@nestjs/common';
import type { StatusOrArtifactEvent } from '../bus/event-bus.js';
import { A2aMessages } from '../a2a.messages.js';
import { AgentCardService } from '../card/agent-card.service.js';
import type { TaskScope } from '../context/call-context.js';
import { openTelemetryApi } from '../observability/otel-api.js';
import type { AgentCard, Message, Task } from '../protocol/a2a.types.js';
import { InvalidA2aOptionsError } from '../errors/invalid-a2a-options.error.js';
import { A2A_AUDIT_SINK, type A2aAuditAgent, type A2aAuditRecordBase, type A2aAuditSink } from './a2a-audit.sink.js';
import {
  artifactAuditFields,
  auditAgentOf,
  AuditSinkCaller,
  messageAuditFields,
  type AuditRecordFields,
} from './audit-records.js';
import { A2aLoggerAuditSink } from './logger-audit.sink.js';

/**
 * The inbound audit trail: turns what the engine commits (a task's creation with its first message, each later
 * message, each status and artifact event) into {@link A2aAuditRecord}s for the sink. Without a sink every method
 * returns at its first line, so the trail costs nothing; nothing it does (a digest, a sink's error or rejection)
 * reaches the task.
 */
@Injectable()
export class A2aAuditTrail {
  /** Whether a sink takes records. */
  readonly enabled: boolean;
  private readonly includeContent: boolean;
  private readonly caller: AuditSinkCaller | undefined;
  private agentOfCard?: { card: AgentCard; agent: A2aAuditAgent };

  constructor(
    private readonly cards: AgentCardService,
    @Optional() @Inject(A2A_AUDIT_SINK) sink: A2aAuditSink | null = null,
  ) {
    this.enabled = sink !== null && sink !== undefined;
    this.includeContent = sink?.includeContent === true;
    this.caller = sink ? new AuditSinkCaller(sink) : undefined;
  }

  /** A task was created: the message that created it, the state it was created in, and its first artifact if any. */
  taskCreated(task: Task, scope: TaskScope, message: Message, first: StatusOrArtifactEvent): void {
    if (!this.enabled) return;
    this.caller!.guarded(() => {
      const base = this.base(task.id, task.contextId, scope);
      this.emit(base, messageAuditFields(message, this.includeContent));
      this.emit(base, { kind: 'state', state: task.status.state, ...statusMessageIdOf(task.status.message) });
      if ('artifactUpdate' in first) this.emit(base, this.artifactFields(first));
    });
  }

  /** A follow-up message joined the task. */
  messageReceived(taskId: string, contextId: string, message: Message, scope: TaskScope): void {
    if (!this.enabled) return;
    this.caller!.guarded(() =>
      this.emit(this.base(taskId, contextId, scope), messageAuditFields(message, this.includeContent)),
    );
  }

  /** A status or artifact event was committed. */
  committed(taskId: string, scope: TaskScope, event: StatusOrArtifactEvent): void {
    if (!this.enabled) return;
    this.caller!.guarded(() => {
      if ('statusUpdate' in event) {
        const { contextId, status } = event.statusUpdate;
        this.emit(this.base(taskId, contextId, scope), {
          kind: 'state',
          state: status.state,
          ...statusMessageIdOf(status.message),
        });
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

  private artifactFields(event: Extract<StatusOrArtifactEvent, { artifactUpdate: unknown }>): AuditRecordFields {
    const { artifact, append, lastChunk } = event.artifactUpdate;
    return artifactAuditFields(artifact, append === true, lastChunk === true, this.includeContent);
  }

  /** The card as served now: its version, and the key ids of its signatures (read once per card). */
  private agent(): A2aAuditAgent {
    const card = this.cards.card;
    if (this.agentOfCard?.card !== card) this.agentOfCard = { card, agent: auditAgentOf(card) };
    return this.agentOfCard.agent;
  }

  private emit(base: A2aAuditRecordBase, fields: AuditRecordFields): void {
    this.caller!.emit(base, fields);
  }
}

function statusMessageIdOf(message: Message | undefined): { statusMessageId?: string } {
  return message ? { statusMessageId: message.messageId } : {};
}

/**
 * The sink option `audit` asks for: `true` the logger sink, a sink of your own, or none (`false`, unset).
 *
 * @throws InvalidA2aOptionsError when `audit` is something else: a typo would otherwise turn the trail off without a word.
 */
export function auditSinkOf(audit: A2aAuditSink | boolean | undefined): A2aAuditSink | null {
  if (audit === undefined || audit === false) return null;
  if (audit === true) return new A2aLoggerAuditSink();
  if (typeof (audit as Partial<A2aAuditSink> | null)?.record !== 'function') {
    throw new InvalidA2aOptionsError(
      A2aMessages.invalidOption(
        'audit',
        audit,
        'true, false, or an object with a record(record) method (A2aAuditSink)',
      ),
    );
  }
  return audit;
}
