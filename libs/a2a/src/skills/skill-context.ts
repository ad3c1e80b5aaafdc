import type { A2aCallContext, A2aPrincipal } from '../context/call-context.js';
import type { Message, Task } from '../protocol/a2a.types.js';

/**
 * What a skill gets for one incoming message. `TInput` is the class of its typed input (`@AgentSkill({ input })`): then
 * `input` is always there; without one, `input` is undefined (and optional, so tests may build a context without it).
 */
export type SkillContext<TInput = unknown> = SkillContextFields &
  (undefined extends TInput ? { readonly input?: TInput } : { readonly input: TInput });

/** Everything of {@link SkillContext} but its typed `input`. */
export interface SkillContextFields {
  /** The user's message, as received. */
  readonly message: Message;
  /** Text of all the message's text parts, joined by newlines: what most skills need. */
  readonly text: string;
  /** The task this message belongs to. For a new conversation turn it exists only once the skill emits a task event. */
  readonly taskId: string;
  readonly contextId: string;
  /** The task as it was before this message, or undefined for a new task. */
  readonly task?: Readonly<Task>;
  /** Earlier messages of the task, oldest first (without this one). */
  readonly history: readonly Message[];
  readonly principal: A2aPrincipal;
  readonly tenant: string;
  readonly call: A2aCallContext;
  /**
   * The extensions this call activated (`A2A-Extensions`) that this skill may use: those of option `extensions` and its
   * own `@A2aExtension`s. Their data is the client's, in `message.metadata` keyed by URI: validate it (spec §4.6.3).
   */
  readonly extensions: readonly string[];
  /** 1, or for a restartable skill run again after its replica died (or handed it over at shutdown), the number of this run. */
  readonly attempt: number;
  /** Aborted when the task is canceled: stop work and emit nothing more. */
  readonly signal: AbortSignal;
  /**
   * In-task authorization (§7.6): after emitting `requireAuth(…)`, waits for the credential the app hands over out of
   * band with `A2aTaskAuthorizations.provide(taskId, credential)` (e.g. from an OAuth callback). The task's streams
   * stay open meanwhile (spec §7.6.1). Rejects when the task is canceled, or after `timeoutMs` with an
   * AuthorizationTimeoutError.
   */
  waitForAuthorization<T = unknown>(options?: { timeoutMs?: number }): Promise<T>;
}
