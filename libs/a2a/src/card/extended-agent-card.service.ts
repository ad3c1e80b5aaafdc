import { Injectable } from '@nestjs/common';
import type { A2aPrincipal } from '../context/call-context.js';
import { A2aError } from '../errors/a2a.error.js';
import type { AgentCard } from '../protocol/a2a.types.js';
import { A2aSecurityPolicy } from '../security/a2a-security.policy.js';
import { copyData } from '../store/data-copy.js';
import { AgentCardService } from './agent-card.service.js';

/** GetExtendedAgentCard (spec §3.3.4, §13.3): the card an authenticated caller sees, from option `security.extendedCard`. */
@Injectable()
export class ExtendedAgentCardService {
  constructor(
    private readonly cards: AgentCardService,
    private readonly security: A2aSecurityPolicy,
  ) {}

  async cardFor(principal: A2aPrincipal): Promise<AgentCard> {
    const provider = this.security.extendedCard;
    // Without it the public card does not declare one, so the operation is unsupported (spec §3.3.4).
    if (provider === undefined) throw new A2aError('UnsupportedOperation', 'This agent has no extended agent card');
    // Only for authenticated callers (§13.3), even where anonymous calls are allowed.
    if (!principal.authenticated) throw new A2aError('Unauthenticated', 'The extended agent card needs authentication');
    const publicCard = this.cards.card;
    if (provider === true) return publicCard;
    // The provider's card differs from the public one: it is signed on its own (the public card's signatures do not
    // cover it), and the provider never sees them.
    const { signatures: _public, ...unsigned } = copyData(publicCard);
    return this.cards.signed(await provider(principal, unsigned));
  }
}
