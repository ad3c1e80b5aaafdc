import type { ProtocolBinding } from '../protocol/a2a.types.js';

/** Who is calling. Until the security guards land every caller is the anonymous principal. */
export interface A2aPrincipal {
  /** Owner key of the caller's tasks: tasks are only visible to the principal that created them. */
  readonly id: string;
  readonly authenticated: boolean;
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
  /** Extension URIs the client activated with `A2A-Extensions`. */
  readonly extensions: readonly string[];
}

/** The store's isolation key: every stored task belongs to one tenant and one owner. */
export interface TaskScope {
  readonly tenant: string;
  readonly owner: string;
}

export function scopeOf(context: A2aCallContext): TaskScope {
  return { tenant: context.tenant, owner: context.principal.id };
}
