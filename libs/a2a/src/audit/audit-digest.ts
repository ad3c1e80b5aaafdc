import { createHash } from 'node:crypto';
import { canonicalJson, JcsError } from '../json/jcs.js';
import type { Part } from '../protocol/a2a.types.js';
import type { A2aPartKind } from './a2a-audit.sink.js';

/** An artifact's digest in the audit trail: hex SHA-256, and whether it is of the JCS form. */
export interface AuditDigest {
  readonly sha256: string;
  readonly canonical: boolean;
}

/**
 * The digest of an artifact event's `parts` as the audit trail records it: the lowercase hex SHA-256 of the array's
 * RFC 8785 (JCS) form, which any party holding the same parts computes alike whatever its JSON library's key order.
 * Parts JCS cannot write (a string with a lone surrogate, which JSON allows) are hashed in their `JSON.stringify` form,
 * with `canonical: false`. Depth is bounded: what a skill emits is held to `limits.maxJsonDepth` before it is committed.
 */
export function auditDigestOf(parts: readonly Part[]): AuditDigest {
  let text: string;
  let canonical = true;
  try {
    text = canonicalJson(parts);
  } catch (error) {
    if (!(error instanceof JcsError)) throw error;
    text = JSON.stringify(parts);
    canonical = false;
  }
  return { sha256: createHash('sha256').update(text, 'utf8').digest('hex'), canonical };
}

/** Which content field each part sets. */
export function partKindsOf(parts: readonly Part[]): A2aPartKind[] {
  return parts.map((part) =>
    part.text !== undefined ? 'text' : part.raw !== undefined ? 'raw' : part.url !== undefined ? 'url' : 'data',
  );
}
