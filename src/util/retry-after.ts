/**
 * `Retry-After` (RFC 9110 §10.2.3) as seconds to wait, once for every reader of the venue (REST
 * answers, refused stream connections): delay seconds (fractions accepted: the venue's
 * `after_seconds` may have them), or an HTTP date, counted from the wall clock. Undefined when
 * absent or unreadable; never negative.
 */
export function parseRetryAfter(
  value: string | readonly string[] | null | undefined,
  wallNowMs = Date.now(),
): number | undefined {
  const text = (typeof value === 'string' ? value : value?.[0])?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  // An HTTP date names its day and month; Date.parse alone would take "-5" for a year.
  const at = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, (at - wallNowMs) / 1000);
}
