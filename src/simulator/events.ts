import { EventEmitter } from 'node:events';
import type { SimFill, SimOrder } from './orders.ts';

/**
 * What happens inside the venue, as it happens. The REST part does not need these; the streams,
 * lifecycle and ground-truth log (part 2) subscribe here instead of reaching into the engine.
 */

export interface BookLevel {
  priceMicro: bigint;
  sharesMicro: bigint;
}

export interface BookSnapshot {
  tokenId: string;
  conditionId: string;
  /** Per token, +1 for every change of its book. */
  sequence: number;
  atMs: number;
  /** Best first: bids descending, asks ascending, in this token's own prices. */
  bids: BookLevel[];
  asks: BookLevel[];
}

/** A public fill (§6.2): one of the fills of a trade, the taker's side of one maker met. */
export interface PublicTrade {
  tradeId: string;
  /** The fill's own id (the taker's fill of this maker); absent when each trade is one fill (narrow case). */
  fillId: string | undefined;
  conditionId: string;
  /** The taker's token, price and side; the complementary token trades at 1 − price. */
  tokenId: string;
  side: 'BUY' | 'SELL';
  priceMicro: bigint;
  sharesMicro: bigint;
  /** When it executed; before `atMs` for a late fill. */
  executedAtMs: number;
  /** When the venue published it. */
  atMs: number;
}

/** Why a resting order left the book without filling; MARKET_CLOSED is this simulator's name for a market that stopped
 * trading. */
export type CancelReason = 'USER' | 'SELF_TRADE_PREVENTION' | 'MARKET_CLOSED';

/** Why an account's collateral moved, other than by a fill (fills carry their own event). */
export type BalanceReason = 'DEPOSIT' | 'LP_INCENTIVE' | 'SPLIT' | 'MERGE' | 'WITHDRAWAL';

export type AccountEvent =
  | { kind: 'order_accepted'; accountId: string; order: SimOrder; atMs: number }
  | { kind: 'order_rejected'; accountId: string; order: SimOrder; atMs: number }
  | { kind: 'order_cancelled'; accountId: string; order: SimOrder; reason: CancelReason; atMs: number }
  | { kind: 'fill'; accountId: string; order: SimOrder; fill: SimFill; atMs: number }
  /** Automatic redemption of one resolved position (§1.7): the shares are gone, the payout is collateral. */
  | {
      kind: 'redemption';
      accountId: string;
      conditionId: string;
      tokenId: string;
      sharesMicro: bigint;
      resolutionPriceMicro: bigint;
      payoutMicro: bigint;
      atMs: number;
    }
  /** Collateral and possibly positions changed outside matching. */
  | { kind: 'balance'; accountId: string; reason: BalanceReason; tokenIds: string[]; atMs: number };

export type MarketStatusKind =
  | 'market_halted'
  | 'market_resumed'
  | 'market_resolved'
  | 'payouts_resolved'
  | 'outcome_proposed'
  | 'payouts_proposed'
  | 'current_market_changed'
  | 'market_resolution_completed';

export interface MarketStatusEvent {
  kind: MarketStatusKind;
  /** The market concerned; for `current_market_changed` the newly active one. */
  conditionId: string;
  marketId: string;
  eventId: string;
  atMs: number;
  /** Kind-specific fields, already in wire form (snake_case, bigints for `_micro`). */
  detail: Record<string, unknown>;
}

/** Event-scoped kinds reach subscribers of the event only (README, "Streams protocol"). */
export const EVENT_SCOPED_KINDS: ReadonlySet<MarketStatusKind> = new Set([
  'current_market_changed',
  'market_resolution_completed',
]);

interface VenueEventMap {
  /** Built lazily: call `snapshot()` only if you need the ladder. */
  book: [{ tokenId: string; conditionId: string; sequence: number; atMs: number; snapshot: () => BookSnapshot }];
  trade: [PublicTrade];
  account: [AccountEvent];
  market_status: [MarketStatusEvent];
}

export class VenueEvents extends EventEmitter<VenueEventMap> {}
