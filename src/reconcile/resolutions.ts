import type { LedgerEvent } from './ledger-events.ts';
import { MICRO } from './venue-rules.ts';

/** What the warehouse knows about how a market resolved and when its positions were redeemed. */
export interface ConditionResolution {
  conditionId: string;
  /** The final resolution (`market_resolved` or `payouts_resolved`), when the status stream saw it. */
  resolvedAtMs: number | undefined;
  winningTokenId: string | undefined;
  /** Payout per share by token: split payouts, or the catalogue's resolution prices. */
  payouts: Map<string, bigint>;
  /** `market_resolution_completed`: the venue says every position of the market was redeemed. */
  completedAtMs: number | undefined;
}

/** A `position_redeemed` frame of the account stream. */
export interface RedemptionFrame {
  atMs: number;
  tokenId: string;
  conditionId: string;
  sharesMicro: bigint;
  resolutionPriceMicro: bigint | undefined;
  payoutMicro: bigint;
}

export function emptyResolution(conditionId: string): ConditionResolution {
  return {
    conditionId,
    resolvedAtMs: undefined,
    winningTokenId: undefined,
    payouts: new Map(),
    completedAtMs: undefined,
  };
}

/** A token's payout per share: its split payout, else 1 for the winner and 0 for the others; undefined if not known. */
export function resolutionPrice(resolution: ConditionResolution, tokenId: string): bigint | undefined {
  const payout = resolution.payouts.get(tokenId);
  if (payout !== undefined) return payout;
  if (resolution.winningTokenId === undefined) return undefined;
  return tokenId === resolution.winningTokenId ? MICRO : 0n;
}

export interface Redemptions {
  events: LedgerEvent[];
  /** Tokens the venue says it redeemed (market completed) at a price nothing in the warehouse gives. */
  unpriced: Array<{ tokenId: string; conditionId: string; atMs: number }>;
}

/**
 * Redemptions as ledger events. A `position_redeemed` frame is the venue's word for one token
 * (price and what it paid); where there is none, `market_resolution_completed` says every position
 * of the market was redeemed at its resolution price, so each token the account traded there is
 * redeemed then. Without either, a resolved position stays open (redeemable), as on the venue
 * until its redemption runs.
 */
export function redemptionEvents(
  frames: readonly RedemptionFrame[],
  resolutions: ReadonlyMap<string, ConditionResolution>,
  tokensTraded: ReadonlyMap<string, string>,
): Redemptions {
  const events: LedgerEvent[] = [];
  const framed = new Set<string>();
  for (const frame of frames) {
    const key = `${frame.tokenId}|${frame.atMs}`;
    if (framed.has(key)) continue; // the same frame delivered twice
    framed.add(key);
    framed.add(frame.tokenId);
    const known = resolutions.get(frame.conditionId);
    const price =
      frame.resolutionPriceMicro ?? (known && resolutionPrice(known, frame.tokenId)) ?? priceFromPayout(frame);
    events.push({
      kind: 'redemption',
      atMs: frame.atMs,
      tokenId: frame.tokenId,
      conditionId: frame.conditionId,
      resolutionPriceMicro: price,
      reported: { sharesMicro: frame.sharesMicro, payoutMicro: frame.payoutMicro },
    });
  }
  const unpriced: Redemptions['unpriced'] = [];
  for (const [tokenId, conditionId] of tokensTraded) {
    const resolution = resolutions.get(conditionId);
    if (framed.has(tokenId) || resolution?.completedAtMs === undefined) continue;
    const price = resolutionPrice(resolution, tokenId);
    if (price === undefined) unpriced.push({ tokenId, conditionId, atMs: resolution.completedAtMs });
    else
      events.push({
        kind: 'redemption',
        atMs: resolution.completedAtMs,
        tokenId,
        conditionId,
        resolutionPriceMicro: price,
      });
  }
  return { events, unpriced };
}

/** payout ÷ shares when a frame names no price (exact: the payout is shares × price). */
function priceFromPayout(frame: RedemptionFrame): bigint {
  return frame.sharesMicro > 0n ? (frame.payoutMicro * MICRO) / frame.sharesMicro : 0n;
}
