/** How often the running venue moves markets through their lives (README, "Market lifecycle"). */
export interface LifecycleConfig {
  /** Mean time between two halts of a random trading market (0: no halts). */
  haltEveryMs: number;
  haltDurationMs: number;
  /** Mean time between two non-recurring events ending (0: none end). */
  endEventEveryMs: number;
  /** Trading stops → first proposal. */
  proposeAfterMs: number;
  /** A proposal stands this long before it is disputed or final. */
  challengeMs: number;
  /** Chance that an event's proposal is disputed once before it resolves. */
  disputeRate: number;
  /** Chance that a market resolves with split payouts instead of a winner. */
  splitRate: number;
  /** Resolution → automatic redemption of its positions and `market_resolution_completed`. */
  redeemDelayMs: number;
}

export const DEFAULT_LIFECYCLE: LifecycleConfig = {
  haltEveryMs: 90_000,
  haltDurationMs: 20_000,
  endEventEveryMs: 180_000,
  proposeAfterMs: 20_000,
  challengeMs: 30_000,
  disputeRate: 0.2,
  splitRate: 0.15,
  redeemDelayMs: 5_000,
};
