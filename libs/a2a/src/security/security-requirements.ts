import type { SecurityRequirement } from '../protocol/a2a.types.js';
import type { SchemeGrant } from './a2a-security-scheme.js';
import type { A2aSecurityRequirement } from './a2a-security.options.js';

/**
 * How a list of alternatives fares against the credentials that passed: `met` names the alternative that holds;
 * otherwise `missingScopes` is set when some alternative has every credential but not every scope (403), and unset
 * when none has every credential (401).
 */
export type RequirementVerdict =
  | { readonly met: A2aSecurityRequirement }
  | {
      readonly met?: undefined;
      readonly missingScopes?: { readonly alternative: A2aSecurityRequirement; readonly scopes: readonly string[] };
    };

/** OR of ANDs (spec §4.4.1 `securityRequirements`). An empty list asks for nothing; an empty alternative is met by anyone. */
export function evaluateRequirements(
  alternatives: readonly A2aSecurityRequirement[],
  grants: ReadonlyMap<string, SchemeGrant>,
): RequirementVerdict {
  if (alternatives.length === 0) return { met: {} };
  let missingScopes: { alternative: A2aSecurityRequirement; scopes: readonly string[] } | undefined;
  for (const alternative of alternatives) {
    let credentials = true;
    const missing: string[] = [];
    for (const [scheme, scopes] of Object.entries(alternative)) {
      const grant = grants.get(scheme);
      if (!grant) {
        credentials = false;
        break;
      }
      for (const scope of scopes) if (!grant.scopes.includes(scope)) missing.push(scope);
    }
    if (!credentials) continue;
    if (missing.length === 0) return { met: alternative };
    missingScopes ??= { alternative, scopes: missing };
  }
  return { missingScopes };
}

/** Our requirement form as the card writes it (`{ schemes: { name: { list } } }`). */
export function toCardRequirements(alternatives: readonly A2aSecurityRequirement[]): SecurityRequirement[] {
  return alternatives.map((alternative) => ({
    schemes: Object.fromEntries(Object.entries(alternative).map(([scheme, scopes]) => [scheme, { list: [...scopes] }])),
  }));
}
