/**
 * Where a redirect points, as an origin only (a Location's path and query may carry anything).
 * No client of tapehouse follows a redirect: the token is sent to the configured URL only.
 */
export function redirectOrigin(location: string | string[] | undefined, requestUrl: string): string | null {
  const text = Array.isArray(location) ? location[0] : location;
  if (!text) return null;
  try {
    return new URL(text, requestUrl).origin;
  } catch {
    return '(an unreadable Location)';
  }
}

/** True for a 3xx status: an answer that would send the client elsewhere. */
export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400;
}
