import { newCostBook, type CostBook, type CostMethod } from './cost-basis.ts';
import type { LedgerEvent, LedgerFill } from './ledger-events.ts';
import { makerRebate, notional, takerFee, type VenueRules } from './venue-rules.ts';

const HALF_MICRO = 500_000n;

/** A redemption as we rebuilt it, with what the venue's frame said when there was one. */
export interface RedemptionFigures {
  atMs: number;
  resolutionPriceMicro: bigint;
  sharesMicro: bigint;
  payoutMicro: bigint;
  reported?: { sharesMicro: bigint; payoutMicro: bigint };
}

/** One token's rebuilt figures. Money in micro-units; realised PnL and cash flow are signed. */
export interface TokenFigures {
  tokenId: string;
  conditionId: string;
  sharesMicro: bigint;
  costBasisMicro: bigint;
  realisedPnlMicro: bigint;
  boughtSharesMicro: bigint;
  boughtCostMicro: bigint;
  soldSharesMicro: bigint;
  soldProceedsMicro: bigint;
  /** Fees the fill records say were charged. */
  feesPaidMicro: bigint;
  /** Fees the venue's rule gives for the same fills (takers only). */
  feesByRuleMicro: bigint;
  makerRebatesMicro: bigint;
  splitSharesMicro: bigint;
  mergedSharesMicro: bigint;
  redemptions: RedemptionFigures[];
  /** Collateral this token moved: sales, payouts and rebates in, purchases and fees out. */
  cashFlowMicro: bigint;
  /** Shares sold beyond what the fills before the sale had bought: a sign of fills missing. */
  oversoldMicro: bigint;
  fills: LedgerFill[];
}

/** The account's rebuilt totals. */
export interface AccountFigures {
  cashMicro: bigint;
  depositsMicro: bigint;
  withdrawalsMicro: bigint;
  feesPaidMicro: bigint;
  makerRebatesMicro: bigint;
  lpIncentivesMicro: bigint;
  realisedPnlMicro: bigint;
  redemptionPayoutsMicro: bigint;
}

interface TokenEntry {
  figures: TokenFigures;
  book: CostBook;
}

function emptyToken(tokenId: string, conditionId: string): TokenFigures {
  return {
    tokenId,
    conditionId,
    sharesMicro: 0n,
    costBasisMicro: 0n,
    realisedPnlMicro: 0n,
    boughtSharesMicro: 0n,
    boughtCostMicro: 0n,
    soldSharesMicro: 0n,
    soldProceedsMicro: 0n,
    feesPaidMicro: 0n,
    feesByRuleMicro: 0n,
    makerRebatesMicro: 0n,
    splitSharesMicro: 0n,
    mergedSharesMicro: 0n,
    redemptions: [],
    cashFlowMicro: 0n,
    oversoldMicro: 0n,
    fills: [],
  };
}

/**
 * The pure core: applies the account's events one by one, exactly as the venue's accounting rules
 * say (src/simulator/README.md, "Accounting"). Fees are never part of cost basis; a sale realises
 * proceeds minus the basis it removes; a redemption pays shares × resolution price and closes the
 * position. It never throws on data the venue should not have sent (a sale beyond the holding):
 * it records it, so the comparison can show it.
 */
export class Ledger {
  readonly account: AccountFigures = {
    cashMicro: 0n,
    depositsMicro: 0n,
    withdrawalsMicro: 0n,
    feesPaidMicro: 0n,
    makerRebatesMicro: 0n,
    lpIncentivesMicro: 0n,
    realisedPnlMicro: 0n,
    redemptionPayoutsMicro: 0n,
  };
  readonly #tokens = new Map<string, TokenEntry>();

  constructor(
    private readonly method: CostMethod,
    /** Undefined: the schedule is not known — fees are the fills' own, no maker rebate is credited (what depends on it
     * is unproven). */
    private readonly rules: VenueRules | undefined,
  ) {}

  apply(event: LedgerEvent): void {
    switch (event.kind) {
      case 'fill':
        return this.#fill(event.fill);
      case 'deposit':
        this.account.cashMicro += event.amountMicro;
        this.account.depositsMicro += event.amountMicro;
        return;
      case 'withdrawal':
        this.account.cashMicro -= event.amountMicro;
        this.account.withdrawalsMicro += event.amountMicro;
        return;
      case 'split':
      case 'merge':
        return this.#splitOrMerge(event);
      case 'redemption':
        return this.#redeem(this.#entry(event.tokenId, event.conditionId), event);
      case 'lp_incentive':
        this.account.cashMicro += event.amountMicro;
        this.account.lpIncentivesMicro += event.amountMicro;
        return;
    }
  }

  /** Tokens with shares (positive or, after a sale beyond the holding, negative). */
  openPositionCount(): number {
    let count = 0;
    for (const { figures } of this.#tokens.values()) if (figures.sharesMicro !== 0n) count += 1;
    return count;
  }

  token(tokenId: string): TokenFigures | undefined {
    const entry = this.#tokens.get(tokenId);
    return entry && { ...entry.figures, costBasisMicro: entry.book.basisMicro };
  }

  /** A copy of every token's figures as they stand now. */
  tokens(): TokenFigures[] {
    return [...this.#tokens.values()].map(({ figures, book }) => ({
      ...figures,
      redemptions: [...figures.redemptions],
      fills: [...figures.fills],
      costBasisMicro: book.basisMicro,
    }));
  }

  accountFigures(): AccountFigures {
    return { ...this.account };
  }

  #entry(tokenId: string, conditionId: string): TokenEntry {
    let entry = this.#tokens.get(tokenId);
    if (!entry) {
      entry = { figures: emptyToken(tokenId, conditionId), book: newCostBook(this.method) };
      this.#tokens.set(tokenId, entry);
    } else if (entry.figures.conditionId === '' && conditionId !== '') {
      entry.figures.conditionId = conditionId;
    }
    return entry;
  }

  #fill(fill: LedgerFill): void {
    const entry = this.#entry(fill.tokenId, fill.conditionId);
    const t = entry.figures;
    t.fills.push(fill);
    const amount = notional(fill.priceMicro, fill.sharesMicro);
    if (fill.side === 'BUY') this.#buy(entry, fill.sharesMicro, amount, fill.feeMicro);
    else this.#sell(entry, fill.sharesMicro, amount, fill.feeMicro);
    if (!this.rules) return;
    if (fill.role === 'MAKER') {
      const rebate = makerRebate(this.rules, fill.priceMicro, fill.sharesMicro);
      t.makerRebatesMicro += rebate;
      t.cashFlowMicro += rebate;
      this.account.makerRebatesMicro += rebate;
      this.account.cashMicro += rebate;
    } else {
      t.feesByRuleMicro += takerFee(this.rules, fill.priceMicro, fill.sharesMicro);
    }
  }

  #buy({ figures: t, book }: TokenEntry, sharesMicro: bigint, costMicro: bigint, feeMicro: bigint): void {
    book.add(sharesMicro, costMicro);
    t.sharesMicro += sharesMicro;
    t.boughtSharesMicro += sharesMicro;
    t.boughtCostMicro += costMicro;
    this.#pay(t, -(costMicro + feeMicro), feeMicro);
  }

  #sell({ figures: t, book }: TokenEntry, sharesMicro: bigint, proceedsMicro: bigint, feeMicro: bigint): void {
    const held = t.sharesMicro;
    if (sharesMicro > held) t.oversoldMicro += sharesMicro - (held > 0n ? held : 0n);
    const removed = held > 0n ? book.remove(sharesMicro, held) : 0n;
    t.sharesMicro -= sharesMicro;
    t.soldSharesMicro += sharesMicro;
    t.soldProceedsMicro += proceedsMicro;
    this.#realise(t, proceedsMicro - removed);
    this.#pay(t, proceedsMicro - feeMicro, feeMicro);
  }

  /** A split buys n of each outcome at ½ without fee; a merge sells n of each at ½. */
  #splitOrMerge(event: Extract<LedgerEvent, { kind: 'split' | 'merge' }>): void {
    const half = notional(HALF_MICRO, event.sharesMicro);
    for (const tokenId of event.tokenIds) {
      const entry = this.#entry(tokenId, event.conditionId);
      if (event.kind === 'split') {
        this.#buy(entry, event.sharesMicro, half, 0n);
        entry.figures.splitSharesMicro += event.sharesMicro;
      } else {
        this.#sell(entry, event.sharesMicro, half, 0n);
        entry.figures.mergedSharesMicro += event.sharesMicro;
      }
    }
  }

  #redeem({ figures: t, book }: TokenEntry, event: Extract<LedgerEvent, { kind: 'redemption' }>): void {
    const shares = t.sharesMicro > 0n ? t.sharesMicro : 0n;
    if (shares === 0n && event.reported === undefined) return;
    const payout = notional(event.resolutionPriceMicro, shares);
    const basis = shares > 0n ? book.remove(shares, shares) : 0n;
    t.redemptions.push({
      atMs: event.atMs,
      resolutionPriceMicro: event.resolutionPriceMicro,
      sharesMicro: shares,
      payoutMicro: payout,
      reported: event.reported,
    });
    t.sharesMicro -= shares;
    this.#realise(t, payout - basis);
    this.#pay(t, payout, 0n);
    this.account.redemptionPayoutsMicro += payout;
  }

  #realise(t: TokenFigures, amountMicro: bigint): void {
    t.realisedPnlMicro += amountMicro;
    this.account.realisedPnlMicro += amountMicro;
  }

  /** Collateral moves by `cashMicro` (signed, fee included); the fee is counted once more as fees paid. */
  #pay(t: TokenFigures, cashMicro: bigint, feeMicro: bigint): void {
    t.cashFlowMicro += cashMicro;
    t.feesPaidMicro += feeMicro;
    this.account.cashMicro += cashMicro;
    this.account.feesPaidMicro += feeMicro;
  }
}
