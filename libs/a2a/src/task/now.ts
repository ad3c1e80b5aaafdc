let nowMs = -1;
let nowIso = '';

/** The current time as ISO 8601; formatted once per millisecond, since every event of a stream carries it. */
export function now(): string {
  const ms = Date.now();
  if (ms !== nowMs) {
    nowMs = ms;
    nowIso = new Date(ms).toISOString();
  }
  return nowIso;
}
