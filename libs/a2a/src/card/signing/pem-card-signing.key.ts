import { constants, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { A2aMessages } from '../../a2a.messages.js';
import { InvalidA2aOptionsError } from '../../errors/invalid-a2a-options.error.js';
import type { CardSigningAlgorithm, CardSigningKey } from './card-signing.key.js';

/** Options of `cardSigningKeyFromPem` and `cardSigningKeyFromFile`: the algorithm, when the key's type allows several. */
export interface PemCardSigningKeyOptions {
  /** Default: EdDSA for Ed25519, ES256 for EC P-256, RS256 for RSA (PS256 on request). */
  alg?: CardSigningAlgorithm;
}

/**
 * A card signing key from a PEM private key (PKCS#8, `-----BEGIN PRIVATE KEY-----`): Ed25519 (EdDSA, the default
 * choice: deterministic, so every replica serves the same signed bytes), EC P-256 (ES256) or RSA ≥ 2048 bits (RS256,
 * PS256). Its `kid` is the RFC 7638 thumbprint of the public key.
 */
export async function cardSigningKeyFromPem(
  pem: string | Buffer,
  options: PemCardSigningKeyOptions = {},
): Promise<CardSigningKey> {
  const privateKey = createPrivateKey(pem);
  const alg = algorithmFor(privateKey, options.alg);
  const publicJwk = createPublicKey(privateKey).export({ format: 'jwk' }) as JWK;
  return {
    kid: await calculateJwkThumbprint(publicJwk, 'sha256'),
    alg,
    publicJwk,
    sign: async (input) => signWith(privateKey, alg, input),
  };
}

/** {@link cardSigningKeyFromPem} of the file at `path`. */
export async function cardSigningKeyFromFile(
  path: string,
  options: PemCardSigningKeyOptions = {},
): Promise<CardSigningKey> {
  return cardSigningKeyFromPem(await readFile(path), options);
}

function algorithmFor(key: KeyObject, wanted: CardSigningAlgorithm | undefined): CardSigningAlgorithm {
  const fitting = fittingAlgorithms(key);
  const type = `${key.asymmetricKeyType ?? key.type}${key.asymmetricKeyDetails?.namedCurve ? ` ${key.asymmetricKeyDetails.namedCurve}` : ''}`;
  if (fitting.length === 0) throw new InvalidA2aOptionsError(A2aMessages.unsupportedCardSigningKey(type));
  if (wanted === undefined) return fitting[0];
  if (!fitting.includes(wanted))
    throw new InvalidA2aOptionsError(A2aMessages.cardSigningAlgorithmMismatch(wanted, type));
  return wanted;
}

function fittingAlgorithms(key: KeyObject): CardSigningAlgorithm[] {
  const details = key.asymmetricKeyDetails;
  switch (key.asymmetricKeyType) {
    case 'ed25519':
      return ['EdDSA'];
    case 'ec':
      return details?.namedCurve === 'prime256v1' ? ['ES256'] : [];
    case 'rsa':
      // jose refuses to verify RSA signatures of smaller keys.
      return (details?.modulusLength ?? 0) >= 2048 ? ['RS256', 'PS256'] : [];
    default:
      return [];
  }
}

function signWith(key: KeyObject, alg: CardSigningAlgorithm, input: Uint8Array): Uint8Array {
  switch (alg) {
    case 'EdDSA':
      return sign(null, input, key);
    case 'ES256':
      // JWS ECDSA signatures are r‖s (RFC 7518 §3.4), not node's default DER.
      return sign('sha256', input, { key, dsaEncoding: 'ieee-p1363' });
    case 'RS256':
      return sign('sha256', input, key);
    case 'PS256':
      return sign('sha256', input, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
  }
}
