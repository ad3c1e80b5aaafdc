import type { AgentCard, AgentCardSignature } from '../../protocol/a2a.types.js';
import { cardPayload } from './card-payload.projection.js';
import type { CardSigningKey } from './card-signing.key.js';
import type { CardSignatureCoverage } from './card-signing.options.js';

/**
 * `card` with its `signatures` replaced by flattened detached JWS (spec §8.4.2), one per key over the `sdk` payload,
 * plus one per key over the `strict` payload when its bytes differ (see CardPayloadCoverage): @a2a-js/sdk verifies
 * only the first kind, a spec-exact verifier (ours first) the second. With `coverage: 'strict'`, only the second.
 * The protected header is `{alg, kid, typ: 'JOSE', jku}`.
 */
export async function signAgentCard(
  card: AgentCard,
  keys: readonly CardSigningKey[],
  jku: string,
  coverage: CardSignatureCoverage = 'both',
): Promise<AgentCard> {
  const content: AgentCard = { ...card };
  delete content.signatures;
  const sdk = cardPayload(content, 'sdk');
  const strict = cardPayload(content, 'strict');
  const payloads = coverage === 'strict' || strict === sdk ? [strict] : [sdk, strict];
  const signatures: AgentCardSignature[] = [];
  for (const key of keys) {
    for (const payload of payloads) signatures.push(await jwsOf(key, payload, jku));
  }
  return { ...content, signatures };
}

async function jwsOf(key: CardSigningKey, payload: string, jku: string): Promise<AgentCardSignature> {
  const header = base64url(JSON.stringify({ alg: key.alg, kid: key.kid, typ: 'JOSE', jku }));
  const signature = await key.sign(Buffer.from(`${header}.${base64url(payload)}`, 'ascii'));
  return { protected: header, signature: Buffer.from(signature).toString('base64url') };
}

/** Unpadded, as JWS requires (node's base64url has no padding). */
function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}
