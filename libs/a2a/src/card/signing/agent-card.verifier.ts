import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  flattenedVerify,
  type FlattenedJWSInput,
  type JSONWebKeySet,
  type JWK,
} from 'jose';
import type { AgentCard } from '../../protocol/a2a.types.js';
import { cardPayload, type CardPayloadCoverage } from './card-payload.projection.js';
import { CARD_SIGNING_ALGORITHMS, type CardSigningAlgorithm } from './card-signing.key.js';

/** Signatures beyond these are not tried: each may cost a key fetch and a verification. */
export const MAX_CARD_SIGNATURES_TRIED = 8;

/** The keys `verifyAgentCard` trusts for an agent (pinned keys or a JWK Set URL) and the algorithms it accepts. */
export interface AgentCardVerificationOptions {
  /** Public keys you trust for this agent (pinned): a JWK Set or its keys, matched by `kid`. */
  keys?: JSONWebKeySet | JWK[];
  /**
   * A JWK Set URL you trust for this agent, fetched (once per call, 5 s timeout) with jose's `createRemoteJWKSet`.
   * The card's own `jku` is never fetched: anyone can put their URL there.
   */
  jwksUrl?: string;
  /** Default and ceiling: EdDSA, ES256, RS256, PS256; each must also fit the key's type. */
  algorithms?: CardSigningAlgorithm[];
}

/** What `verifyAgentCard` found: whether a signature verified, which key, and the card as signed. */
export interface AgentCardVerification {
  valid: boolean;
  /** The `kid` of the signature that verified. */
  kid?: string;
  /**
   * `strict` when a signature covers the spec's payload (every field the proto knows), `sdk` when only the payload of
   * @a2a-js/sdk verified (it leaves out empty values, e.g. a requirement's empty scope list).
   */
  coverage?: CardPayloadCoverage;
  /**
   * The card rebuilt from the payload that verified, without `signatures`: use this, not the card you received, whose
   * fields outside the payload (unknown ones, or empty ones under `sdk` coverage) nobody signed.
   */
  card?: AgentCard;
}

interface Candidate {
  jws: Omit<FlattenedJWSInput, 'payload'>;
  kid: string;
}

type KeySource = Parameters<typeof flattenedVerify>[1];

const INVALID: AgentCardVerification = { valid: false };

/**
 * Verifies a card's signatures (spec §8.4.3) against keys you trust: `keys`, `jwksUrl`, or both. Valid when one of
 * the first 8 signatures verifies over the card's `strict` payload, else over its `sdk` one. A signature counts only
 * with `alg` on the allowlist and fitting the key, a `kid`, `typ` absent or `JOSE`, and no `crit` (no extension is
 * understood). Malformed cards and signatures are invalid, never thrown; only a call with neither `keys` nor `jwksUrl`
 * rejects.
 */
export async function verifyAgentCard(
  card: unknown,
  options: AgentCardVerificationOptions,
): Promise<AgentCardVerification> {
  if (options.keys === undefined && options.jwksUrl === undefined)
    throw new TypeError('verifyAgentCard needs keys or a jwksUrl to trust');
  const signatures =
    typeof card === 'object' && card !== null ? (card as { signatures?: unknown }).signatures : undefined;
  if (!Array.isArray(signatures)) return INVALID;
  const allowed = (options.algorithms ?? CARD_SIGNING_ALGORITHMS).filter((alg) =>
    CARD_SIGNING_ALGORITHMS.includes(alg),
  );
  const candidates = signatures
    .slice(0, MAX_CARD_SIGNATURES_TRIED)
    .map((entry) => candidateOf(entry, allowed))
    .filter((candidate) => candidate !== undefined);
  const sources = keySources(options);
  if (candidates.length === 0 || sources.length === 0) return INVALID;
  let tried: string | undefined;
  for (const coverage of ['strict', 'sdk'] as const) {
    const payload = payloadOf(card, coverage);
    // Most cards have one payload for both coverages.
    if (payload === undefined || payload === tried) continue;
    tried = payload;
    const encoded = Buffer.from(payload, 'utf8').toString('base64url');
    for (const candidate of candidates) {
      if (await verifies(candidate, encoded, sources, allowed))
        return { valid: true, kid: candidate.kid, coverage, card: JSON.parse(payload) as AgentCard };
    }
  }
  return INVALID;
}

function candidateOf(entry: unknown, allowed: readonly string[]): Candidate | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { protected: protectedHeader, signature, header } = entry as Record<string, unknown>;
  if (typeof protectedHeader !== 'string' || typeof signature !== 'string') return undefined;
  if (header !== undefined && (typeof header !== 'object' || header === null || Array.isArray(header)))
    return undefined;
  let parsed: Record<string, unknown>;
  try {
    parsed = decodeProtectedHeader({ protected: protectedHeader });
  } catch {
    return undefined;
  }
  const { alg, kid } = parsed;
  if (typeof alg !== 'string' || !allowed.includes(alg)) return undefined;
  if (typeof kid !== 'string' || kid === '') return undefined;
  const typ = parsed.typ ?? (header as Record<string, unknown> | undefined)?.typ;
  if (typ !== undefined && typ !== 'JOSE') return undefined;
  // RFC 7515 §4.1.11: an extension the verifier does not understand fails the signature; we understand none (b64 included).
  if (parsed.crit !== undefined || parsed.b64 !== undefined) return undefined;
  return { jws: { protected: protectedHeader, signature, header: header as FlattenedJWSInput['header'] }, kid };
}

function keySources(options: AgentCardVerificationOptions): KeySource[] {
  const sources: KeySource[] = [];
  try {
    if (options.keys !== undefined)
      sources.push(createLocalJWKSet(Array.isArray(options.keys) ? { keys: options.keys } : options.keys));
    if (options.jwksUrl !== undefined) {
      sources.push(
        createRemoteJWKSet(new URL(options.jwksUrl), {
          timeoutDuration: 5_000,
          cooldownDuration: 30_000,
          cacheMaxAge: 600_000,
        }),
      );
    }
  } catch {
    // A malformed key set or URL trusts nothing.
  }
  return sources;
}

function payloadOf(card: unknown, coverage: CardPayloadCoverage): string | undefined {
  try {
    return cardPayload(card, coverage);
  } catch {
    return undefined;
  }
}

async function verifies(
  candidate: Candidate,
  payload: string,
  sources: readonly KeySource[],
  allowed: CardSigningAlgorithm[],
): Promise<boolean> {
  for (const source of sources) {
    try {
      // jose picks the key by kid and by the type the alg needs, and checks the alg against the allowlist.
      await flattenedVerify({ ...candidate.jws, payload }, source, { algorithms: allowed });
      return true;
    } catch {
      // Not this key source.
    }
  }
  return false;
}
