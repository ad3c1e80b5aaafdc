import { X509Certificate } from 'node:crypto';
import type { A2aAuditAgent, A2aAuditRecordBase, A2aAuditSink } from '../audit/a2a-audit.sink.js';
import {
  artifactAuditFields,
  auditAgentOf,
  AuditSinkCaller,
  messageAuditFields,
  type AuditRecordFields,
} from '../audit/audit-records.js';
import { A2aLoggerAuditSink } from '../audit/logger-audit.sink.js';
import type {
  AgentCard,
  Message,
  StreamResponse,
  Task,
  TaskArtifactUpdateEvent,
  TaskStatus,
} from '../protocol/a2a.types.js';
import { A2aClientOptionsError } from './a2a-client.errors.js';
import { A2aClientMessages } from './a2a-client.messages.js';
import type { A2aClientCredentials } from './a2a-client.options.js';
import type { ResolvedAgentCard } from './agent-card.resolver.js';
import { asSendMessageResult, asTask } from './response.shapes.js';
import type { ClientMethod } from './transports/client.transport.js';

/** The operations about one task whose answers the trail reads. ListTasks and the push configs are not delegations. */
const AUDITED: ReadonlySet<ClientMethod> = new Set([
  'SendMessage',
  'SendStreamingMessage',
  'SubscribeToTask',
  'GetTask',
  'CancelTask',
]);

/** Tasks whose last status and artifacts a client remembers, to record only what changed; the least recently seen go first. */
export const MAX_REMEMBERED_TASKS = 10_000;

/** What the client last recorded of one task. */
interface TaskSeen {
  /** State, timestamp and status message id of the last status recorded. */
  status?: string;
  /** Digest last recorded of each artifact; `''` after chunks (the whole is not known yet). */
  readonly artifacts: Map<string, string>;
}

/**
 * The sink option `audit` of the client: `true` the logger sink, a sink of your own, or none (`false`, unset).
 * @throws A2aClientOptionsError for anything else.
 */
export function clientAuditSinkOf(audit: A2aAuditSink | boolean | undefined): A2aAuditSink | undefined {
  if (audit === undefined || audit === false) return undefined;
  if (audit === true) return new A2aLoggerAuditSink();
  if (typeof (audit as Partial<A2aAuditSink> | null)?.record !== 'function') {
    throw new A2aClientOptionsError(
      A2aClientMessages.invalidOption(
        'audit',
        'true, false, or an A2aAuditSink (an object with a record(record) method)',
      ),
    );
  }
  return audit;
}

/**
 * The outbound audit trail of one agent's client: what this app delegated to the agent, and what it saw come of it,
 * as the records the server makes of inbound delegations, with `direction: 'outbound'`:
 *
 * - `message`: each message sent (once the agent has answered it, which is when its task is known), and each message
 *   the agent sent: a direct reply, and the message of each status recorded (`role: 'ROLE_AGENT'`);
 * - `state`: each status seen (a stream's status updates, a task in an answer) that differs from the last one recorded
 *   for the task, so a snapshot repeating it (a follow-up stream's first event, GetTask) adds nothing;
 * - `artifact`: each artifact event of a stream (a chunk hashed alone, as the server does), and each artifact of a task
 *   in an answer whose digest differs from the last recorded.
 *
 * `agent` is the card the call used (its version; the key that verified it, or the key ids its signatures name),
 * `traceId`/`spanId` the call's span, `tenant` the interface's. Records are made synchronously as answers are read;
 * the sink is never awaited, and what it throws or rejects is logged, never thrown into the call.
 */
export class OutboundAuditTrail {
  readonly principalId: string;
  private readonly caller: AuditSinkCaller;
  private readonly seen = new Map<string, TaskSeen>();
  private agentOfCard?: { card: AgentCard; agent: A2aAuditAgent };

  constructor(
    sink: A2aAuditSink,
    credentials: A2aClientCredentials | undefined,
    private readonly card: () => ResolvedAgentCard | undefined,
  ) {
    this.caller = new AuditSinkCaller(sink);
    this.principalId = principalOf(credentials);
  }

  /** The audit of one call, or undefined when `method` is not one the trail reads. */
  call(
    method: ClientMethod,
    request: { message?: unknown },
    ids: () => { traceId: string; spanId: string } | undefined,
  ): OutboundAuditCall | undefined {
    if (!AUDITED.has(method)) return undefined;
    const sent =
      method === 'SendMessage' || method === 'SendStreamingMessage'
        ? (request.message as Message | undefined)
        : undefined;
    return new OutboundAuditCall(this, method, sent, ids);
  }

  /** @internal */
  get includeContent(): boolean {
    return this.caller.includeContent;
  }

  /** @internal What the trail last recorded of `taskId` (remembered for the most recently seen tasks). */
  seenOf(taskId: string): TaskSeen {
    let seen = this.seen.get(taskId);
    if (seen) {
      this.seen.delete(taskId);
    } else {
      seen = { artifacts: new Map() };
      if (this.seen.size >= MAX_REMEMBERED_TASKS) this.seen.delete(this.seen.keys().next().value!);
    }
    this.seen.set(taskId, seen);
    return seen;
  }

  /** @internal */
  agent(): A2aAuditAgent {
    const resolved = this.card();
    if (!resolved) return { cardVersion: '' };
    if (this.agentOfCard?.card !== resolved.card)
      this.agentOfCard = { card: resolved.card, agent: auditAgentOf(resolved.card, resolved.verification?.kid) };
    return this.agentOfCard.agent;
  }

  /** @internal */
  emit(base: A2aAuditRecordBase, fields: AuditRecordFields): void {
    this.caller.emit(base, fields);
  }

  /** @internal */
  guarded(work: () => void): void {
    this.caller.guarded(work);
  }
}

/** The records of one call: fed the answer (unary) or each event (streams); never throws. */
export class OutboundAuditCall {
  private tenant = '';
  /** The message this call sent, until it is recorded. */
  private unsent: Message | undefined;

  constructor(
    private readonly trail: OutboundAuditTrail,
    private readonly method: ClientMethod,
    sent: Message | undefined,
    private readonly ids: () => { traceId: string; spanId: string } | undefined,
  ) {
    this.unsent = sent;
  }

  /** An attempt uses an interface with this tenant. */
  attempt(tenant: string | undefined): void {
    this.tenant = tenant ?? '';
  }

  /** A unary call's answer, as received (its shape is checked here too). */
  answered(value: unknown): void {
    this.trail.guarded(() => {
      if (this.method === 'SendMessage') {
        const result = asSendMessageResult(value);
        if (result && 'status' in result) this.task(result);
        else if (result) this.reply(result);
      } else {
        const task = asTask(value);
        if (task) this.task(task);
      }
    });
  }

  /** One event of a stream. */
  event(response: StreamResponse): void {
    this.trail.guarded(() => {
      if ('task' in response && response.task) this.task(response.task);
      else if ('message' in response && response.message) this.reply(response.message);
      else if ('statusUpdate' in response && response.statusUpdate) {
        const { taskId, contextId, status } = response.statusUpdate;
        this.sentTo(taskId, contextId);
        this.status(taskId, contextId, status);
      } else if ('artifactUpdate' in response && response.artifactUpdate) {
        this.artifactEvent(response.artifactUpdate);
      }
    });
  }

  private task(task: Task): void {
    this.sentTo(task.id, task.contextId);
    // The artifacts, then the state they led to.
    const seen = this.trail.seenOf(task.id);
    for (const artifact of task.artifacts ?? []) {
      const fields = artifactAuditFields(artifact, false, false, this.trail.includeContent);
      if (seen.artifacts.get(artifact.artifactId) === fields.sha256) continue;
      seen.artifacts.set(artifact.artifactId, fields.sha256);
      this.trail.emit(this.base(task.id, task.contextId), fields);
    }
    this.status(task.id, task.contextId, task.status);
  }

  private artifactEvent(event: TaskArtifactUpdateEvent): void {
    const { taskId, contextId, artifact, append, lastChunk } = event;
    this.sentTo(taskId, contextId);
    const fields = artifactAuditFields(artifact, append === true, lastChunk === true, this.trail.includeContent);
    this.trail.seenOf(taskId).artifacts.set(artifact.artifactId, append === true ? '' : fields.sha256);
    this.trail.emit(this.base(taskId, contextId), fields);
  }

  /** A direct reply: the message sent, then the agent's, under the ids the reply (or the message sent) names. */
  private reply(message: Message): void {
    const taskId = message.taskId ?? this.unsent?.taskId ?? '';
    const contextId = message.contextId ?? this.unsent?.contextId ?? '';
    this.sentTo(taskId, contextId);
    this.trail.emit(this.base(taskId, contextId), messageAuditFields(message, this.trail.includeContent));
  }

  /** A status, recorded when it is not the last one recorded for the task (with its message first). */
  private status(taskId: string, contextId: string, status: TaskStatus): void {
    const key = `${status.state}|${status.timestamp ?? ''}|${status.message?.messageId ?? ''}`;
    const seen = this.trail.seenOf(taskId);
    if (seen.status === key) return;
    seen.status = key;
    const base = this.base(taskId, contextId);
    if (status.message) this.trail.emit(base, messageAuditFields(status.message, this.trail.includeContent));
    this.trail.emit(base, {
      kind: 'state',
      state: status.state,
      ...(status.message ? { statusMessageId: status.message.messageId } : {}),
    });
  }

  /** The message this call sent, once: now that the agent answered, under the task it joined. */
  private sentTo(taskId: string, contextId: string): void {
    const sent = this.unsent;
    if (!sent) return;
    this.unsent = undefined;
    this.trail.emit(this.base(taskId, contextId), messageAuditFields(sent, this.trail.includeContent));
  }

  private base(taskId: string, contextId: string): A2aAuditRecordBase {
    const ids = this.ids();
    return {
      direction: 'outbound',
      timestamp: new Date().toISOString(),
      ...(ids ? { traceId: ids.traceId, spanId: ids.spanId } : {}),
      taskId,
      contextId,
      principalId: this.trail.principalId,
      tenant: this.tenant,
      agent: this.trail.agent(),
    };
  }
}

/** Who this client calls as, from its credentials: the OAuth2 client id, the Basic user name, or the certificate's CN. */
function principalOf(credentials: A2aClientCredentials | undefined): string {
  if (!credentials) return 'anonymous';
  if (credentials.oauth2?.clientId) return credentials.oauth2.clientId;
  if (credentials.basic?.username) return credentials.basic.username;
  if (credentials.mtls) {
    try {
      const subject = new X509Certificate(credentials.mtls.cert).subject;
      return /(?:^|\n)CN=([^\n]+)/.exec(subject)?.[1] ?? subject;
    } catch {
      // Not a certificate we can read: the agent will say so; the trail does not.
    }
  }
  return credentials.bearer !== undefined || credentials.apiKey !== undefined || credentials.mtls
    ? 'unknown'
    : 'anonymous';
}
