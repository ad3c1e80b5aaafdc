import type { Part, Role, TaskState } from '../protocol/a2a.types.js';

/**
 * Which way a delegation went: `'inbound'`, a caller delegated a task to this agent (the server records these);
 * `'outbound'`, this app delegated a task to another agent (the client's records).
 */
export type A2aAuditDirection = 'inbound' | 'outbound';

/** The kind of a part: which one of its content fields is set. */
export type A2aPartKind = 'text' | 'raw' | 'url' | 'data';

/** The agent that serves the task, as its AgentCard says: this agent in inbound records, the remote one in outbound ones. */
export interface A2aAuditAgent {
  /** The card's `version` (the agent's own version, not the protocol's). */
  readonly cardVersion: string;
  /**
   * The `kid` of each of the card's signatures, when it is signed (option `cardSigning`). Outbound: the key that
   * verified the card when the client pins keys (`cardVerification`), else the ids the card's signatures name.
   */
  readonly signingKeyIds?: readonly string[];
  /** Outbound records only: true when the client verified the card's signature against its pinned keys. */
  readonly verified?: true;
}

/** What every record says: who delegated what to which agent, when, and in which trace. */
export interface A2aAuditRecordBase {
  readonly direction: A2aAuditDirection;
  /**
   * When the record was made (ISO 8601): inbound, right after the store committed what it records; outbound, when the
   * client saw it in the agent's answer.
   */
  readonly timestamp: string;
  /**
   * Inbound: the trace and span active when the change was committed (the skill's span, or the operation's), if one
   * records. Outbound: the client call's span (or the span active when the call began).
   */
  readonly traceId?: string;
  readonly spanId?: string;
  readonly taskId: string;
  readonly contextId: string;
  /**
   * Who delegated. Inbound: the caller's principal id, the task's owner (`anonymous` without authentication). Outbound:
   * the identity this app called with, as far as the client knows it: its OAuth2 `clientId`, Basic `username` or
   * client certificate's subject CN; `anonymous` without credentials, `unknown` with only a bearer token or API key.
   */
  readonly principalId: string;
  /** The tenant of the call; `''` when none. */
  readonly tenant: string;
  readonly agent: A2aAuditAgent;
}

/** A message the delegating side sent: once per message, when it joins the task. */
export interface A2aMessageAuditRecord extends A2aAuditRecordBase {
  readonly kind: 'message';
  readonly messageId: string;
  readonly role: Role;
  /** The kind of each part, in order. */
  readonly partKinds: readonly A2aPartKind[];
  /** The parts themselves, only for a sink with `includeContent: true` (shared with the task: do not mutate them). */
  readonly parts?: readonly Part[];
}

/** A state the task entered (its first one included), once the store has it. */
export interface A2aStateAuditRecord extends A2aAuditRecordBase {
  readonly kind: 'state';
  readonly state: TaskState;
  /** The id of the status message that came with the change, if any (its content is in the task's history). */
  readonly statusMessageId?: string;
}

/**
 * One artifact event: a whole artifact, or one chunk of it. The digest covers the parts this event carries: for a
 * chunk appended to an artifact (`append: true`), that chunk's parts alone, so the chunks of one artifact are hashed
 * one by one, in the order of their records, and never as the artifact they add up to.
 */
export interface A2aArtifactAuditRecord extends A2aAuditRecordBase {
  readonly kind: 'artifact';
  readonly artifactId: string;
  readonly name?: string;
  /** This event adds its parts to an artifact an earlier event began. */
  readonly append: boolean;
  /** The last chunk of the artifact. */
  readonly lastChunk: boolean;
  readonly partKinds: readonly A2aPartKind[];
  /**
   * Lowercase hex SHA-256 of the event's `parts` array in its RFC 8785 (JCS) form (see `auditDigestOf`). Parts JCS
   * refuses, strings with a lone surrogate, are hashed in their `JSON.stringify` form instead, and `canonical` is false.
   */
  readonly sha256: string;
  /** Present, and false, when `sha256` is not of the JCS form. */
  readonly canonical?: false;
  /** The parts themselves, only for a sink with `includeContent: true` (shared with the task: do not mutate them). */
  readonly parts?: readonly Part[];
}

/** One entry of the audit trail, told apart by `kind` (and by `direction`). */
export type A2aAuditRecord = A2aMessageAuditRecord | A2aStateAuditRecord | A2aArtifactAuditRecord;

/**
 * Where the audit trail goes (module option `audit`, or the provider of {@link A2A_AUDIT_SINK}; for outbound records,
 * the client's option `audit`, which A2aClientModule defaults to A2A_AUDIT_SINK). `record` is called on the task's own
 * path, right after each change is committed (outbound: as the client reads the answer), so it must return quickly:
 * buffer, and ship to a database or a log pipeline from there. A returned promise is never awaited (its rejection is
 * logged), and an error it throws is caught and logged: the sink can neither slow a task or a call by being
 * asynchronous nor fail it.
 */
export interface A2aAuditSink {
  /** Takes one record; must return quickly (see above). */
  record(record: A2aAuditRecord): void | PromiseLike<void>;
  /**
   * Whether message and artifact records carry the parts themselves (`parts`). Default false: ids, roles, part kinds
   * and digests only, so the trail holds no user content.
   */
  readonly includeContent?: boolean;
}

/** The audit sink in use (an {@link A2aAuditSink}), or `null` when the audit trail is off. Exported by A2aModule. */
export const A2A_AUDIT_SINK = Symbol('A2A_AUDIT_SINK');
