import type { A2aOperationName } from '../context/a2a-invocation.js';
import type { A2aPrincipal } from '../context/call-context.js';
import type { AgentCard } from '../protocol/a2a.types.js';
import type { A2aSecurityScheme } from './a2a-security-scheme.js';

/**
 * One alternative of a requirement list: scheme name → scopes it must grant (`[]` for none). Every scheme in it must
 * pass (AND); a list of alternatives passes when any one does (OR), as the card's `securityRequirements`.
 */
export type A2aSecurityRequirement = Readonly<Record<string, readonly string[]>>;

/** Option `security.anonymousCallers`: whether callers without credentials are kept apart or are one owner. */
export type A2aAnonymousCallers = 'isolated' | 'shared';

/** Option `security` of A2aModule: declared once, enforced on every binding, published in the card. */
export interface A2aSecurityOptions {
  /** The card's `securitySchemes`, by name, each with its verifier. */
  schemes?: Readonly<Record<string, A2aSecurityScheme>>;
  /**
   * The card's `securityRequirements`, checked on every operation. Default: each scheme alone is one alternative,
   * with no scopes (any one credential suffices).
   */
  requirements?: readonly A2aSecurityRequirement[];
  /**
   * Further requirements of single operations, on top of the card's (e.g. a write scope for SendMessage and
   * CancelTask). Missing scopes answer 403 / PERMISSION_DENIED.
   */
  operations?: Partial<Readonly<Record<A2aOperationName, readonly A2aSecurityRequirement[]>>>;
  /**
   * Requirements of single skills, by skill id, on top of the card's: for when they depend on configuration, since
   * `@AgentSkill({ security })` is fixed in code. Replaces the decorator's for that skill.
   */
  skills?: Readonly<Record<string, readonly A2aSecurityRequirement[]>>;
  /**
   * Whether a call without any credential is served, as the anonymous principal. With schemes, credentials that are
   * sent are still checked. Without schemes the agent is open either way; `true` says so on purpose and silences the
   * warning logged at boot.
   */
  allowAnonymous?: boolean;
  /**
   * What unauthenticated callers (no credential, no principal; `A2aPrincipal.authenticated` false) may do, wherever
   * they are served (`allowAnonymous`, or no schemes). They all share one owner key, `anonymous`, so:
   * - `'isolated'` (default): each anonymous caller reaches only the tasks whose ids it holds: the server-made task id
   *   (a random UUID) is the capability for GetTask, CancelTask, SubscribeToTask and follow-up messages. ListTasks
   *   and every push config operation (SendMessage's inline config included), which would reach other callers' tasks
   *   or store secrets for them, answer 403 / PERMISSION_DENIED.
   * - `'shared'`: all anonymous callers are one owner: each lists every anonymous task and manages its push configs.
   *
   * Either way no stored push secret (`token`, `authentication.credentials`) is returned to an anonymous caller, and
   * option `maxActiveTasksPerPrincipal` counts all anonymous callers' tasks together.
   */
  anonymousCallers?: A2aAnonymousCallers;
  /**
   * Whether `principal` may use `tenant` (the request's `tenant`, `''` when none). Default: every tenant. Refused
   * tenants, known or not, answer 403 / PERMISSION_DENIED.
   */
  tenantPolicy?: (principal: A2aPrincipal, tenant: string) => boolean | Promise<boolean>;
  /**
   * Enables GetExtendedAgentCard for authenticated callers (`capabilities.extendedAgentCard: true`): the card this
   * principal sees, given the public one (e.g. with more skills). `true` serves the public card itself.
   */
  extendedCard?: true | ((principal: A2aPrincipal, publicCard: AgentCard) => AgentCard | Promise<AgentCard>);

  /**
   * Most tasks one principal may have running at once (not yet in a terminal or interrupted state); further new tasks
   * answer 429 / RESOURCE_EXHAUSTED. Default: no cap.
   */
  maxActiveTasksPerPrincipal?: number;
}
