import type { ProtocolBinding } from '../protocol/a2a.types.js';
import type { SchemeGrant } from '../security/a2a-security-scheme.js';

/**
 * Who is calling: set by a guard (`setA2aPrincipal`) or found by the principal resolver; else anonymous. Tasks are
 * only visible to the owner that created them; the owner key is namespaced by how the principal was established, so
 * no two sources share tasks (a principal the app builds is keyed `app:<id>`).
 */
export interface A2aPrincipal {
  /**
   * Who the caller is. For the principals the module builds it is the owner key itself: `<scheme>:<issuer>|<subject>`
   * (or `<scheme>:<subject>`) for a security scheme, `user:<id>` for the default resolver's Passport user, `anonymous`
   * for a call without one. A principal an app sets (`setA2aPrincipal`, option `principalResolver`) keeps its own id;
   * its tasks are stored under `app:<id>`.
   */
  readonly id: string;
  /** False for the anonymous principal: option `security.anonymousCallers` decides what such callers may do. */
  readonly authenticated: boolean;
  /** Who the credential names (a key's owner, a token's `sub`, a certificate's subject), without the scheme and issuer of `id`. */
  readonly subject?: string;
  /** Every scope the caller's credentials grant. */
  readonly scopes?: readonly string[];
  /** What each security scheme the caller passed granted, by scheme name (set by the module's own guard). */
  readonly schemes?: Readonly<Record<string, SchemeGrant>>;
  readonly claims?: Readonly<Record<string, unknown>>;
}

/** The principals the module built, whose id is their owner key already; any other came from the app. */
const builtByModule = new WeakSet<A2aPrincipal>();

/** Marks a principal the module built (a scheme's, the default resolver's): its id is its owner key. */
export function modulePrincipal<P extends A2aPrincipal>(principal: P): P {
  builtByModule.add(principal);
  return principal;
}

/** The caller of a call without credentials or principal. Its owner key is `anonymous`, outside every namespace. */
export const ANONYMOUS_PRINCIPAL: A2aPrincipal = modulePrincipal(
  Object.freeze({ id: 'anonymous', authenticated: false }),
);

/**
 * The key a principal's tasks are stored under: its id when the module built it (`<scheme>:…`, `user:…`,
 * `anonymous`), `app:<id>` for one the app built (a copy of the module's included), so an app's id never equals a
 * scheme's, a Passport user's or the anonymous owner.
 */
export function ownerKeyOf(principal: A2aPrincipal): string {
  return builtByModule.has(principal) ? principal.id : `app:${principal.id}`;
}

/** Everything an operation needs to know about the call besides its request message, the same on every binding. */
export interface A2aCallContext {
  readonly principal: A2aPrincipal;
  /** Opaque routing id from the path (`/{tenant}/…`) or the request's `tenant` field; `''` when none. */
  readonly tenant: string;
  readonly binding: ProtocolBinding;
  /** The negotiated protocol version (`Major.Minor`). */
  readonly version: string;
  /** The extensions the call activated: the URIs of its `A2A-Extensions` that the agent declares; others are ignored (spec §4.6.3). */
  readonly extensions: readonly string[];
  /**
   * The `Last-Event-ID` the client sent (HTTP header; gRPC metadata `last-event-id`): the SSE `id:` of the last frame
   * it read, so SubscribeToTask resumes after it instead of starting from the task.
   */
  readonly lastEventId?: string;
}

/** The store's isolation key: every stored task belongs to one tenant and one owner. */
export interface TaskScope {
  readonly tenant: string;
  readonly owner: string;
}

export function scopeOf(context: A2aCallContext): TaskScope {
  return { tenant: context.tenant, owner: ownerKeyOf(context.principal) };
}
