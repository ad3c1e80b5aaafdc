/**
 * The scopes a token grants: `scope` (RFC 8693/9068, space-separated) together with `scp` (a space-separated string
 * at Entra ID, an array at Okta and others). Anything that is not a string is ignored.
 */
export function tokenScopes(claims: Readonly<Record<string, unknown>>): string[] {
  const scopes = new Set<string>();
  for (const value of [claims['scope'], claims['scp']]) {
    const entries = typeof value === 'string' ? value.split(' ') : Array.isArray(value) ? value : [];
    for (const entry of entries) if (typeof entry === 'string' && entry !== '') scopes.add(entry);
  }
  return [...scopes];
}
