import { redeemShares } from '../accounts/ledger.ts';
import type { AccountRegistry } from '../accounts/registry.ts';
import type { Catalogue } from '../catalogue/catalogue.ts';
import type { SimMarket } from '../catalogue/types.ts';
import type { Exchange } from '../engine/exchange.ts';
import type { VenueEvents } from '../events.ts';

/** Resolution price of each outcome: a winner is [1, 0] or [0, 1]; anything else is a split. */
export type Payouts = readonly [bigint, bigint];

const ONE = 1_000_000n;

export function winnerOf(payouts: Payouts): 0 | 1 | undefined {
  if (payouts[0] === ONE && payouts[1] === 0n) return 0;
  if (payouts[1] === ONE && payouts[0] === 0n) return 1;
  return undefined;
}

/** The fields a frame uses to name the result: a winner, or the payouts of a split (never a winner with no token,
 * §6.2). */
export function resultFields(market: SimMarket, payouts: Payouts): Record<string, unknown> {
  const winner = winnerOf(payouts);
  if (winner !== undefined)
    return { winning_token_id: market.outcomes[winner].tokenId, winning_outcome: market.outcomes[winner].label };
  return {
    payouts: market.outcomes.map((o) => ({ token_id: o.tokenId, outcome: o.label, payout_micro: payouts[o.index] })),
  };
}

/**
 * The state changes of a market from the end of trading to settled, each with its REST effect and
 * its `market_status` event: close, propose (outcome or payouts), dispute, resolve, redeem.
 */
export class MarketResolution {
  constructor(
    private readonly catalogue: Catalogue,
    private readonly exchange: Exchange,
    private readonly accounts: AccountRegistry,
    private readonly events: VenueEvents,
  ) {}

  /** Trading stops: the book is cleared (orders cancelled) and the market is CLOSED. No frame: §6.2 has no kind for it.
   */
  close(market: SimMarket, atMs: number): void {
    if (market.state !== 'ACTIVE') return;
    market.state = 'CLOSED';
    market.closeMs = Math.min(market.closeMs, atMs);
    // A halt ends with trading; the market is closed, not halted.
    market.haltedAtMs = undefined;
    market.haltedReason = undefined;
    this.exchange.closeMarket(market);
  }

  propose(market: SimMarket, payouts: Payouts, round: number, atMs: number): void {
    market.resolutionStatus = 'PROPOSED';
    const winner = winnerOf(payouts);
    const kind = winner === undefined ? 'payouts_proposed' : 'outcome_proposed';
    const detail: Record<string, unknown> =
      winner === undefined
        ? { ...resultFields(market, payouts), proposal_round: round }
        : {
            proposed_token_id: market.outcomes[winner].tokenId,
            proposed_outcome: market.outcomes[winner].label,
            proposal_round: round,
          };
    this.catalogue.announce(kind, market, atMs, detail);
  }

  /** A dispute is visible in REST only (`resolution_status` DISPUTED); the next proposal carries the next round. */
  dispute(market: SimMarket): void {
    market.resolutionStatus = 'DISPUTED';
  }

  resolve(market: SimMarket, payouts: Payouts, atMs: number): void {
    const winner = winnerOf(payouts);
    for (const outcome of market.outcomes) outcome.resolutionPriceMicro = payouts[outcome.index];
    market.state = 'RESOLVED';
    market.resolvedAtMs = atMs;
    const voided = payouts[0] === ONE / 2n && payouts[1] === ONE / 2n;
    market.resolutionStatus = voided ? 'VOID' : 'RESOLVED';
    market.resolutionOutcome = winner !== undefined ? market.outcomes[winner].label : voided ? 'VOID' : 'SPLIT';
    this.catalogue.announce(
      winner === undefined ? 'payouts_resolved' : 'market_resolved',
      market,
      atMs,
      resultFields(market, payouts),
    );
  }

  /** Automatic redemption: every position in the market is paid its resolution price; returns how many were redeemed.
   */
  redeem(market: SimMarket, atMs: number): number {
    let redeemed = 0;
    for (const account of this.accounts.all()) {
      for (const outcome of market.outcomes) {
        const price = outcome.resolutionPriceMicro;
        if (price === undefined) continue;
        const { sharesMicro, payoutMicro } = redeemShares(account, outcome.tokenId, price, atMs);
        if (sharesMicro === 0n) continue;
        // The pair escrow pays out: Σ payouts of a market = its escrow, since payouts sum to one.
        this.exchange.venue.addEscrow(market.conditionId, -payoutMicro);
        redeemed++;
        this.events.emit('account', {
          kind: 'redemption',
          accountId: account.id,
          conditionId: market.conditionId,
          tokenId: outcome.tokenId,
          sharesMicro,
          resolutionPriceMicro: price,
          payoutMicro,
          atMs,
        });
      }
    }
    return redeemed;
  }

  /** Event-scoped: the resolution is final and paid out; `replacement` is the cycle that took over, if any. */
  complete(
    market: SimMarket,
    payouts: Payouts,
    replacement: SimMarket | undefined,
    redeemedPositions: number,
    atMs: number,
  ): void {
    this.catalogue.announce('market_resolution_completed', market, atMs, {
      resolution: winnerOf(payouts) === undefined ? 'payouts' : 'winner',
      ...resultFields(market, payouts),
      redeemed_positions: redeemedPositions,
      replacement: replacement ? marketRef(replacement) : null,
    });
  }
}

/** How frames name a market and its outcome tokens. */
export function marketRef(market: SimMarket): Record<string, unknown> {
  return {
    market_id: market.id,
    condition_id: market.conditionId,
    slug: market.slug,
    outcomes: market.outcomes.map((o) => ({ outcome_id: o.id, token_id: o.tokenId, label: o.label })),
  };
}
