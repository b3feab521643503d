import type { Unread } from './json.ts';
import { integer, list, loose, object, requiredScalar, scalar, streamData } from './schema.ts';

/**
 * `market_status` — topic market.status, key condition_id (the event id for the event-scoped kinds
 * `current_market_changed` and `market_resolution_completed`). The `market_status` frame's data:
 * any `kind` string is kept, with the kind's own fields as sent. Made by capture
 * (src/capture/market/market-records.ts); stored in `market_status`.
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
  replacement?:
    | ({
        market_id?: string;
        condition_id?: string;
        slug?: string;
        outcomes?: Array<{ token_id?: string } & Unread>;
      } & Unread)
    | null;
}

/**
 * A `market_status` payload at the bus boundary: any kind; `halted_reason` (earlier name of
 * `reason`) and the `new_*` fields of earlier `current_market_changed` records read too; payouts
 * and outcomes checked entry by entry by the loader; the whole frame read through to its data.
 */
export const marketStatusSchema = streamData(
  loose({
    kind: requiredScalar,
    payouts: list,
    replacement: object,
    condition_id: scalar,
    market_id: scalar,
    event_id: scalar,
    sequence: integer,
    reason: scalar,
    halted_reason: scalar,
    winning_token_id: scalar,
    new_market_id: scalar,
    new_condition_id: scalar,
    new_token_ids: list,
    outcomes: list,
    proposed_token_id: scalar,
    proposed_outcome: scalar,
    proposal_round: integer,
    winning_outcome: scalar,
    resolution: scalar,
    redeemed_positions: integer,
    previous_market_id: scalar,
    previous_condition_id: scalar,
  }),
);
