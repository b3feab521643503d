import type { TokenFigures } from './ledger.ts';

/** A market's (condition's) figures: the sum of its outcome tokens'. */
export interface MarketFigures {
  conditionId: string;
  tokenIds: string[];
  fills: number;
  openCostBasisMicro: bigint;
  realisedPnlMicro: bigint;
  feesPaidMicro: bigint;
  makerRebatesMicro: bigint;
  redemptionPayoutsMicro: bigint;
  /** Collateral in (positive) or out of the account through this market. */
  cashFlowMicro: bigint;
  /** How it resolved, as the redemptions show it: payout per share by token. */
  resolutionPrices: Record<string, bigint>;
}

export function marketFigures(tokens: readonly TokenFigures[]): MarketFigures[] {
  const byCondition = new Map<string, MarketFigures>();
  for (const t of tokens) {
    let m = byCondition.get(t.conditionId);
    if (!m) {
      m = {
        conditionId: t.conditionId,
        tokenIds: [],
        fills: 0,
        openCostBasisMicro: 0n,
        realisedPnlMicro: 0n,
        feesPaidMicro: 0n,
        makerRebatesMicro: 0n,
        redemptionPayoutsMicro: 0n,
        cashFlowMicro: 0n,
        resolutionPrices: {},
      };
      byCondition.set(t.conditionId, m);
    }
    m.tokenIds.push(t.tokenId);
    m.fills += t.fills.length;
    m.openCostBasisMicro += t.costBasisMicro;
    m.realisedPnlMicro += t.realisedPnlMicro;
    m.feesPaidMicro += t.feesPaidMicro;
    m.makerRebatesMicro += t.makerRebatesMicro;
    m.cashFlowMicro += t.cashFlowMicro;
    for (const r of t.redemptions) {
      m.redemptionPayoutsMicro += r.payoutMicro;
      m.resolutionPrices[t.tokenId] = r.resolutionPriceMicro;
    }
  }
  return [...byCondition.values()].sort((a, b) => a.conditionId.localeCompare(b.conditionId));
}
