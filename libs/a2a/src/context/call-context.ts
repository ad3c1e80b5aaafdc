import type { ProtocolBinding } from '../protocol/a2a.types.js';
import type { SchemeGrant } from '../security/a2a-security-scheme.js';
import type { A2aInvocation } from './a2a-invocation.js';
import type { A2aPrincipalResolver } from './principal.resolver.js';

/** Who is calling: set by a guard (`setA2aPrincipal`) or found by the principal resolver; else anonymous. */
export interface A2aPrincipal {
  /** Owner key of the caller's tasks: tasks are only visible to the principal that created them. */
  readonly id: string;
  readonly authenticated: boolean;
  /** Who the credential names (a key's owner, a token's `sub`, a certificate's subject), without the scheme and issuer of `id`. */
  readonly subject?: string;
  /** Every scope the caller's credentials grant. */
  readonly scopes?: readonly string[];
  /** What each security scheme the caller passed granted, by scheme name (set by the module's own guard). */
  readonly schemes?: Readonly<Record<string, SchemeGrant>>;
  readonly claims?: Readonly<Record<string, unknown>>;
}

export const ANONYMOUS_PRINCIPAL: A2aPrincipal = Object.freeze({ id: 'anonymous', authenticated: false });

/** Everything an operation needs to know about the call besides its request message, the same on every binding. */
export interface A2aCallContext {
  readonly principal: A2aPrincipal;
  /** Opaque routing id from the path (`/{tenant}/…`) or the request's `tenant` field; `''` when none. */
  readonly tenant: string;
  readonly binding: ProtocolBinding;
  /** The negotiated protocol version (`Major.Minor`). */
  readonly version: string;
  /** The extensions the call activated: the URIs of its `A2A-Extensions` that the agent declares; others are ignored (R60). */
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
  return { tenant: context.tenant, owner: context.principal.id };
}

/** The context an operation runs with, once the app's guards have run: their principal, or the resolver's. */
export function callContextOf(invocation: A2aInvocation, carrier: object, resolve: A2aPrincipalResolver): A2aCallContext {
  const principal = invocation.principal ?? resolve(carrier, invocation) ?? ANONYMOUS_PRINCIPAL;
  const context: A2aCallContext = { principal, tenant: invocation.tenant, binding: invocation.binding, version: invocation.version, extensions: invocation.extensions };
  const lastEventId = invocation.headers['last-event-id'];
  return typeof lastEventId === 'string' ? { ...context, lastEventId } : context;
}
