/**
 * Every 429 the simulator answers, by cause: the ones a client *earned* by going past a limit of
 * §8 (edge, per-IP, account buckets, stream attempts) apart from the ones a fault injected (REST
 * storms, refused stream connections). A well-behaved client earns none, whatever is injected;
 * the fault suite asserts exactly that.
 */
export const EARNED_LIMITS = ['edge', 'ip', 'account', 'stream_attempts'] as const;
export type EarnedLimit = (typeof EARNED_LIMITS)[number];

export interface RateLimitCounts {
  earned: Record<EarnedLimit, number>;
  injected: number;
}

export class RateLimitTally {
  readonly #earned: Record<EarnedLimit, number> = { edge: 0, ip: 0, account: 0, stream_attempts: 0 };
  #injected = 0;

  earn(limit: EarnedLimit): void {
    this.#earned[limit] += 1;
  }

  inject(): void {
    this.#injected += 1;
  }

  counts(): RateLimitCounts {
    return { earned: { ...this.#earned }, injected: this.#injected };
  }
}
