import type { ProtocolBinding } from '../protocol/a2a.types.js';

/**
 * An interface an HTTP binding also serves in another protocol version (option `compat`): the card lists it after
 * every 1.0 one (spec §3.6.2), at the binding's URL.
 */
export interface CompatInterface {
  /** The binding whose mount is the interface's URL; not listed when that binding is not mounted. */
  readonly mount: 'jsonRpc' | 'rest';
  readonly protocolBinding: ProtocolBinding;
  readonly protocolVersion: string;
}

/** The card's entries of other protocol versions, in order (an empty list: 1.0 only). */
export const A2A_COMPAT_INTERFACES = Symbol('A2A_COMPAT_INTERFACES');
