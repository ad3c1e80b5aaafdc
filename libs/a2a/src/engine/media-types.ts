/** True when some produced media type matches some accepted one; `*` wildcards work on either side (`text/*`, `*\/*`). */
export function acceptsAnyOf(accepted: readonly string[], produced: readonly string[]): boolean {
  return accepted.some((a) => produced.some((p) => matches(a, p)));
}

function matches(a: string, b: string): boolean {
  const [at, as = '*'] = base(a).split('/');
  const [bt, bs = '*'] = base(b).split('/');
  return (at === '*' || bt === '*' || at === bt) && (as === '*' || bs === '*' || as === bs);
}

function base(mediaType: string): string {
  return mediaType.split(';')[0].trim().toLowerCase();
}
