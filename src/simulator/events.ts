import { EventEmitter } from 'node:events';
import type { SimFill, SimOrder } from './engine/types.ts';

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

export interface PublicTrade {
  tradeId: string;
  conditionId: string;
  /** The taker's token, price and side; the complementary token trades at 1 − price. */
  tokenId: string;
  side: 'BUY' | 'SELL';
  priceMicro: bigint;
  sharesMicro: bigint;
  atMs: number;
}

export type AccountEvent =
  | { kind: 'order_accepted'; accountId: string; order: SimOrder; atMs: number }
  | { kind: 'order_rejected'; accountId: string; order: SimOrder; atMs: number }
  | { kind: 'order_cancelled'; accountId: string; order: SimOrder; reason: 'USER' | 'SELF_TRADE_PREVENTION'; atMs: number }
  | { kind: 'fill'; accountId: string; order: SimOrder; fill: SimFill; atMs: number };

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
  conditionId: string;
  eventId: string;
  atMs: number;
  detail: Record<string, unknown>;
}

interface VenueEventMap {
  /** Built lazily: call `snapshot()` only if you need the ladder. */
  book: [{ tokenId: string; conditionId: string; sequence: number; atMs: number; snapshot: () => BookSnapshot }];
  trade: [PublicTrade];
  account: [AccountEvent];
  market_status: [MarketStatusEvent];
}

export class VenueEvents extends EventEmitter<VenueEventMap> {}
