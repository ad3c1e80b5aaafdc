const DELAY_SECONDS = /^\d+$/;
// RFC 9110 §5.6.7: IMF-fixdate and the obsolete RFC 850 form end in GMT; asctime has no zone and means GMT too.
const ASCTIME = /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * A `Retry-After` header (RFC 9110 §10.2.3), seconds or an HTTP date, as milliseconds from `now`; undefined when
 * absent or unreadable. A date in the past means "now" (0). The retry policy caps what it honours.
 */
export function parseRetryAfter(
  value: string | readonly string[] | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === undefined) return undefined;
  const text = (typeof value === 'string' ? value : (value[0] ?? '')).trim();
  if (DELAY_SECONDS.test(text)) return Math.min(Number(text) * 1000, Number.MAX_SAFE_INTEGER);
  let at = Number.NaN;
  if (text.endsWith(' GMT')) at = Date.parse(text);
  else if (ASCTIME.test(text)) at = Date.parse(`${text} GMT`);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
