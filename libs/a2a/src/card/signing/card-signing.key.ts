import type { JWK } from 'jose';

/** The JWS algorithms a card may be signed and verified with: asymmetric ones that jose, the SDKs and the TCK all support. */
export const CARD_SIGNING_ALGORITHMS = ['EdDSA', 'ES256', 'RS256', 'PS256'] as const;

/** A JWS algorithm a card may be signed and verified with: EdDSA, ES256, RS256 or PS256. */
export type CardSigningAlgorithm = (typeof CARD_SIGNING_ALGORITHMS)[number];

/**
 * A key that signs AgentCards (spec §8.4). `cardSigningKeyFromPem` and `cardSigningKeyFromFile` make one from a local
 * private key; for a KMS or an HSM, implement it yourself, the private key never leaving it:
 *
 * ```ts
 * const kmsKey: CardSigningKey = {
 *   kid: 'card-2026-11',            // e.g. the RFC 7638 thumbprint of publicJwk (jose's calculateJwkThumbprint)
 *   alg: 'ES256',
 *   publicJwk: { kty: 'EC', crv: 'P-256', x: '…', y: '…' },
 *   // A KMS returns ECDSA signatures in DER; JWS wants r‖s (64 bytes for P-256), so convert (derToRaw is yours).
 *   sign: async (input) => derToRaw(await kms.sign({ keyId, message: input, algorithm: 'ECDSA_SHA_256' })),
 * };
 * ```
 */
export interface CardSigningKey {
  /** The JWS `kid`, also the key's `kid` in the JWK Set the agent serves. */
  readonly kid: string;
  readonly alg: CardSigningAlgorithm;
  /** The public key's members only (`kty`, `crv`, `x`, `y`, `n`, `e`); the JWK Set adds `use`, `alg` and `kid`. */
  readonly publicJwk: JWK;
  /** The raw JWS signature of `input` (the ASCII of `protected.payload`, both base64url), as RFC 7518 §3 defines it. */
  sign(input: Uint8Array): Promise<Uint8Array>;
}

/**
 * The keys that sign the card now; the agent's JWK Set lists the keys of the latest signing. Asked whenever a card is
 * signed (at bootstrap, when the card changes, for each `AgentCardService.signed()`), so a provider can rotate: return
 * the old and the new key together for at least the card's max-age (the card carries both signatures), then the new one.
 */
export interface CardSigningKeyProvider {
  /** The keys the card is signed with now; each one adds a signature. */
  activeKeys(): Promise<CardSigningKey[]> | CardSigningKey[];
}
