import type { CardSigningKey, CardSigningKeyProvider } from './card-signing.key.js';

/** Where the agent serves its JWK Set unless `cardSigning.jwksPath` says otherwise. */
export const DEFAULT_JWKS_PATH = '/.well-known/jwks.json';

/** Module option `cardSigning`: sign the AgentCard (spec §8.4) and serve the public keys. */
export interface A2aCardSigningOptions {
  /**
   * The signing keys: `[await cardSigningKeyFromFile('card-key.pem')]`, your own CardSigningKey objects (a KMS), or a
   * provider asked for its active keys at each signing (rotation).
   */
  keys: CardSigningKeyProvider | CardSigningKey[];
  /**
   * Path of the JWK Set (public keys with `use`, `alg`, `kid`) at the origin's root, whatever the app's global prefix;
   * the signatures' `jku` is `baseUrl` + this path. Default `/.well-known/jwks.json`.
   */
  jwksPath?: string;
  /**
   * What each key signs. `'both'` (default): the spec's canonical form and, when its bytes differ, the form
   * @a2a-js/sdk 1.3 verifies (it drops empty values such as a requirement's empty scope list), so both kinds of
   * verifier accept the card. `'strict'`: the spec's canonical form only, one signature per key.
   */
  coverage?: CardSignatureCoverage;
}

/** What each card signing key signs (option `cardSigning.coverage`): `'both'` forms of the card, or the spec's `'strict'` one only. */
export type CardSignatureCoverage = 'both' | 'strict';
