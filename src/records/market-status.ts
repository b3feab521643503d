import type { Unread } from './json.ts';

/**
 * `market_status` — topic market.status, key condition_id (the event id for the event-scoped kinds
 * `current_market_changed` and `market_resolution_completed`). The `market_status` frame's data:
 * any `kind` string is kept, with the kind's own fields as sent. Made by capture
 * (src/capture/market-records.ts); stored in `market_status`.
 */
export interface MarketStatusPayload extends Unread {
  kind: string;
  event_id?: string;
  market_id?: string;
  condition_id?: string;
  reason?: string;
  winning_token_id?: string;
  winning_outcome?: string;
  payouts?: Array<{ token_id?: string; outcome?: string; payout_micro?: string } & Unread>;
  proposed_token_id?: string;
  proposal_round?: number;
  /** `current_market_changed`: the new market's outcomes. */
  outcomes?: Array<{ outcome_id?: string; token_id?: string; label?: string } & Unread>;
  previous_market_id?: string;
  previous_condition_id?: string;
  opens_at?: string;
  closes_at?: string;
  proposed_outcome?: string;
  /** `market_resolution_completed`: `winner` or `payouts`. */
  resolution?: string;
  redeemed_positions?: number;
  /** `market_resolution_completed`: the cycle that took over, or null. */
  replacement?: ({ market_id?: string; condition_id?: string; slug?: string; outcomes?: Array<{ token_id?: string } & Unread> } & Unread) | null;
}
