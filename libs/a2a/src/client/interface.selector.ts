import type { AgentCard, AgentInterface, ProtocolBinding } from '../protocol/a2a.types.js';
import {
  A2aAddressRefusedError,
  A2aCardError,
  A2aCredentialsRefusedError,
  A2aTransportError,
} from './a2a-client.errors.js';
import { A2aClientMessages } from './a2a-client.messages.js';

/**
 * Which interface of the card a call goes to (spec §8.3.2): the card's `supportedInterfaces` in its order,
 * keeping the bindings this client is set to use and protocol version 1.x. An interface whose connection failed is
 * passed over for `downMs`: it goes last until then, so calls do not each wait on a dead address.
 */
export class InterfaceSelector {
  private readonly downUntil = new Map<string, number>();

  constructor(
    private readonly bindings: readonly ProtocolBinding[],
    private readonly downMs: number,
  ) {}

  /**
   * The interfaces to try, in order.
   * @throws A2aCardError `NoCompatibleInterface` when the card offers none this client speaks.
   */
  candidates(card: AgentCard, cardUrl: string): AgentInterface[] {
    const usable = card.supportedInterfaces.filter(
      (entry) => this.bindings.includes(entry.protocolBinding) && /^1(\.|$)/.test(entry.protocolVersion.trim()),
    );
    if (usable.length === 0) {
      const offered = card.supportedInterfaces.map((entry) => `${entry.protocolBinding} ${entry.protocolVersion}`);
      throw new A2aCardError(
        'NoCompatibleInterface',
        A2aClientMessages.noCompatibleInterface(cardUrl, offered, this.bindings.map(String)),
        { url: cardUrl },
      );
    }
    const now = Date.now();
    const isDown = (entry: AgentInterface) => (this.downUntil.get(keyOf(entry)) ?? 0) > now;
    return [...usable.filter((entry) => !isDown(entry)), ...usable.filter(isDown)];
  }

  markDown(entry: AgentInterface): void {
    this.downUntil.set(keyOf(entry), Date.now() + this.downMs);
  }

  markUp(entry: AgentInterface): void {
    this.downUntil.delete(keyOf(entry));
  }
}

/**
 * Whether a failed attempt may go to the next interface: only when nothing reached the agent (a refused or
 * unreachable connection, an address the SSRF guard refused, an interface outside the credential scope, a binding
 * whose packages are missing), so any call, idempotent or not, is safe to send elsewhere.
 */
export function canFallBack(error: unknown): boolean {
  if (error instanceof A2aAddressRefusedError || error instanceof A2aCredentialsRefusedError) return true;
  return error instanceof A2aTransportError && (error.connectFailed || error.kind === 'TransportUnavailable');
}

/** One interface as a map key: binding, URL and tenant. */
export function keyOf(entry: AgentInterface): string {
  return `${entry.protocolBinding} ${entry.url} ${entry.tenant ?? ''}`;
}
