import { Inject, Injectable } from '@nestjs/common';
import type { JWK } from 'jose';
import { A2aMessages } from '../../a2a.messages.js';
import { A2A_MODULE_OPTIONS } from '../../a2a-module-definition.js';
import type { A2aModuleOptions } from '../../a2a-module.options.js';
import type { AgentCard } from '../../protocol/a2a.types.js';
import { InvalidA2aOptionsError } from '../../errors/invalid-a2a-options.error.js';
import { signAgentCard } from './agent-card.signature.js';
import type { CardSigningKey } from './card-signing.key.js';
import { DEFAULT_JWKS_PATH } from './card-signing.options.js';

/** JWK members of private keys: never published, even if a hand-made CardSigningKey puts them in `publicJwk`. */
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/**
 * Signs cards with the keys of option `cardSigning` (a no-op without it), and keeps the JWK Set of the keys it signed
 * with last, for JwksRoute.
 */
@Injectable()
export class AgentCardSigner {
  private jwks?: string;

  constructor(@Inject(A2A_MODULE_OPTIONS) private readonly options: A2aModuleOptions) {}

  get enabled(): boolean {
    return this.options.cardSigning !== undefined;
  }

  /** At the origin's root, like the card. */
  get jwksPath(): string {
    return `/${(this.options.cardSigning?.jwksPath ?? DEFAULT_JWKS_PATH).replace(/^\/+/, '')}`;
  }

  /** The JWK Set, serialized. */
  get jwksJson(): string {
    if (this.jwks === undefined) throw new Error('AgentCardSigner: the JWK Set was read before any card was signed');
    return this.jwks;
  }

  /** `card` signed by every active key (see signAgentCard); unchanged when signing is off. */
  async sign(card: AgentCard): Promise<AgentCard> {
    const signing = this.options.cardSigning;
    if (signing === undefined) return card;
    const keys = Array.isArray(signing.keys) ? signing.keys : await signing.keys.activeKeys();
    if (keys.length === 0) throw new InvalidA2aOptionsError(A2aMessages.noCardSigningKeys());
    const signed = await signAgentCard(card, keys, this.jku, signing.coverage);
    this.jwks = JSON.stringify({ keys: keys.map(jwkSetEntry) });
    return signed;
  }

  /** The JWK Set's absolute URL: `baseUrl` (the card's, same default) and the JWK Set's path. */
  private get jku(): string {
    return `${(this.options.baseUrl ?? 'http://localhost:3000').replace(/\/+$/, '')}${this.jwksPath}`;
  }
}

function jwkSetEntry(key: CardSigningKey): JWK {
  const jwk: Record<string, unknown> = { ...key.publicJwk };
  for (const member of PRIVATE_JWK_MEMBERS) delete jwk[member];
  return { ...jwk, use: 'sig', alg: key.alg, kid: key.kid };
}
