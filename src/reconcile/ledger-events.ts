/**
 * What the ledger is rebuilt from: the account's fills and the other movements of its money and
 * shares, as plain values (bigint micro-units, epoch milliseconds). The warehouse reader builds
 * them; the core never sees SQL.
 */

export type Side = 'BUY' | 'SELL';

export interface LedgerFill {
  fillId: string;
  orderId: string;
  tokenId: string;
  conditionId: string;
  side: Side;
  /** MAKER, or the taker role (the venue names only MAKER; anything else is treated as taker). */
  role: string;
  priceMicro: bigint;
  sharesMicro: bigint;
  /** The fee the fill record says was charged (the maker's is 0). */
  feeMicro: bigint;
  atMs: number;
}

export type LedgerEvent =
  | { kind: 'fill'; atMs: number; fill: LedgerFill }
  /** Collateral in (DEPOSIT activity) or out (a withdrawal). */
  | { kind: 'deposit' | 'withdrawal'; atMs: number; id: string; amountMicro: bigint }
  /** SPLIT: n collateral → n shares of each outcome at ½; MERGE: the reverse. */
  | {
      kind: 'split' | 'merge';
      atMs: number;
      id: string;
      conditionId: string;
      tokenIds: readonly string[];
      sharesMicro: bigint;
    }
  /**
   * Automatic redemption of a resolved position at its resolution price. `reported` is what the
   * venue's redemption frame said it redeemed and paid, when there was one.
   */
  | {
      kind: 'redemption';
      atMs: number;
      tokenId: string;
      conditionId: string;
      resolutionPriceMicro: bigint;
      reported?: { sharesMicro: bigint; payoutMicro: bigint };
    }
  /** An LP-incentive payout into collateral. */
  | { kind: 'lp_incentive'; atMs: number; amountMicro: bigint };

/**
 * Within one millisecond the venue redeems before it matches, and settles batches and pays
 * incentives after (src/simulator/venue.ts, tick); cash flows commute, so only the order of
 * share movements on one token matters, and this keeps it.
 */
const RANK: Record<LedgerEvent['kind'], number> = {
  deposit: 0,
  withdrawal: 0,
  redemption: 1,
  fill: 2,
  split: 3,
  merge: 3,
  lp_incentive: 4,
};

/**
 * The venue's order: by time, then by kind as above; events of one kind at one instant keep the
 * order they were given in (the reader gives fills in the venue's listing order).
 */
export function inVenueOrder(events: readonly LedgerEvent[]): LedgerEvent[] {
  const indexed = events.map((event, index) => ({ event, index }));
  indexed.sort((a, b) => a.event.atMs - b.event.atMs || RANK[a.event.kind] - RANK[b.event.kind] || a.index - b.index);
  return indexed.map((entry) => entry.event);
}
