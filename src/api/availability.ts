import { NotOfferedError } from './errors.ts';

/** How long a "not offered here" answer is trusted before the venue is asked again. */
export const DEFAULT_REMEMBER_MS = 10 * 60_000;

interface Memory {
  error: NotOfferedError;
  /** Infinity for 410 endpoint_retired: never asked again in this process. */
  until: number;
}

/**
 * What the venue said it does not offer (route_not_found, feature_not_configured,
 * price_*_not_configured, endpoint_retired), keyed by base URL and endpoint. One instance per
 * process by default, so a retired endpoint is retired for every client of that venue.
 */
export class Availability {
  readonly #memory = new Map<string, Memory>();

  constructor(readonly rememberMs = DEFAULT_REMEMBER_MS) {}

  remember(key: string, error: NotOfferedError, now: number): void {
    this.#memory.set(key, { error, until: error.permanent ? Number.POSITIVE_INFINITY : now + this.rememberMs });
  }

  /** The remembered answer as a fresh error marked `remembered`, or undefined when the venue should be asked. */
  recall(key: string, now: number): NotOfferedError | undefined {
    const memory = this.#memory.get(key);
    if (!memory) return undefined;
    if (now >= memory.until) {
      this.#memory.delete(key);
      return undefined;
    }
    const original = memory.error;
    const again = new NotOfferedError({
      status: original.status,
      code: original.code,
      requestId: original.requestId,
      recovery: original.recovery,
      fieldErrors: original.fieldErrors,
      retryAfterSeconds: original.retryAfterSeconds,
      title: original.title,
      detail: original.detail,
      type: original.type,
      source: original.source,
      endpoint: original.endpoint,
      problem: original.problem,
    });
    again.remembered = true;
    return again;
  }
}

let shared: Availability | undefined;

export function processAvailability(): Availability {
  shared ??= new Availability();
  return shared;
}
