import { compare, type ComparisonRow, type Judge } from './comparison.ts';
import { describeFill, explainPosition, formatShares, formatUnits, isoTime } from './explain.ts';
import type { FillCompleteness } from './fill-completeness.ts';
import type { AccountFigures, TokenFigures } from './ledger.ts';
import { averagePrice, notional, type VenueRules } from './venue-rules.ts';
import type {
  PositionsSnapshot,
  UnobservedBuckets,
  VenuePnlBucket,
  VenueRebates,
  VenueSummary,
} from './warehouse-reports.ts';

/**
 * The comparer: our rebuilt figures against the venue's, one row per figure. Each function takes
 * the ledger as it stood when the venue's figure held.
 */

/** Whether a token's market had a final resolution by an instant (its redemption then matters). */
export type ResolvedBy = (conditionId: string, atMs: number) => boolean;

/** The ledger at one instant: account totals and every token. */
export interface LedgerAt {
  account: AccountFigures;
  tokens: Map<string, TokenFigures>;
}

/** Each position's shares, average price, open cost basis and unrealised PnL (at the venue's mark). */
export function comparePositions(
  judge: Judge,
  snapshot: PositionsSnapshot,
  ours: LedgerAt,
  resolvedBy: ResolvedBy,
): ComparisonRow[] {
  const theirs = new Map(snapshot.positions.map((p) => [p.tokenId, p]));
  const tokenIds = new Set([
    ...theirs.keys(),
    ...[...ours.tokens.values()].filter((t) => t.sharesMicro !== 0n).map((t) => t.tokenId),
  ]);
  const rows: ComparisonRow[] = [];
  for (const tokenId of [...tokenIds].sort()) {
    const venue = theirs.get(tokenId);
    const token = ours.tokens.get(tokenId);
    const shares = token?.sharesMicro ?? 0n;
    const basis = token?.costBasisMicro ?? 0n;
    const conditionId = venue?.conditionId || token?.conditionId || '';
    const common = {
      scope: 'position' as const,
      tokenId,
      conditionId,
      reportedAtMs: snapshot.asOfMs,
      figure: { kind: 'position' as const, tokenId, resolved: resolvedBy(conditionId, snapshot.asOfMs) },
      explain: () => `${venue ? '' : "not in the venue's positions; "}${explainPosition(token)}`,
    };
    rows.push(compare(judge, { ...common, field: 'shares_micro', ours: shares, theirs: venue?.sharesMicro ?? 0n }));
    if (!venue || venue.avgPriceMicro !== undefined) {
      rows.push(
        compare(judge, {
          ...common,
          field: 'avg_price_micro',
          ours: averagePrice(basis, shares),
          theirs: venue?.avgPriceMicro ?? 0n,
        }),
      );
    }
    if (!venue || venue.openCostBasisMicro !== undefined) {
      rows.push(
        compare(judge, {
          ...common,
          field: 'open_cost_basis_micro',
          ours: basis,
          theirs: venue?.openCostBasisMicro ?? 0n,
        }),
      );
    }
    // Unrealised PnL needs the venue's mark, which only a listed position carries.
    if (venue?.currentPriceMicro !== undefined && venue.profitLossMicro !== undefined) {
      const pnl = notional(venue.currentPriceMicro, shares) - basis;
      rows.push(compare(judge, { ...common, field: 'profit_loss_micro', ours: pnl, theirs: venue.profitLossMicro }));
    }
  }
  return rows;
}

/**
 * Cash, and the values that rest on marks: the marks are the venue's own (`current_price_micro` of
 * the positions read at the summary's instant); without such a read they cannot be checked.
 */
export function compareSummary(
  judge: Judge,
  summary: VenueSummary,
  ours: LedgerAt,
  snapshot: PositionsSnapshot | undefined,
): ComparisonRow[] {
  const open = [...ours.tokens.values()].filter((t) => t.sharesMicro !== 0n);
  const basis = open.reduce((sum, t) => sum + t.costBasisMicro, 0n);
  const marks =
    snapshot?.asOfMs === summary.asOfMs
      ? new Map(snapshot.positions.map((p) => [p.tokenId, p.currentPriceMicro]))
      : undefined;
  const unmarked = marks ? open.filter((t) => marks.get(t.tokenId) === undefined).map((t) => t.tokenId) : [];
  const value = open.reduce((sum, t) => sum + notional(marks?.get(t.tokenId) ?? 0n, t.sharesMicro), 0n);
  const noMarks = !marks
    ? "no positions read at the summary's instant, so no marks to value them"
    : unmarked.length > 0
      ? `no mark for ${unmarked.length} token(s) we hold that the venue does not list (${unmarked.slice(0, 3).join(', ')})`
      : undefined;
  const common = { scope: 'summary' as const, reportedAtMs: summary.asOfMs, figure: { kind: 'account' as const } };
  const explainCash = () => cashExplanation(ours.account);
  return [
    compare(judge, {
      ...common,
      field: 'cash_balance_micro',
      ours: ours.account.cashMicro,
      theirs: summary.cashBalanceMicro,
      explain: explainCash,
    }),
    compare(judge, {
      ...common,
      field: 'positions_value_micro',
      ours: value,
      theirs: summary.positionsValueMicro,
      unprovenBecause: noMarks,
    }),
    compare(judge, {
      ...common,
      field: 'portfolio_value_micro',
      ours: ours.account.cashMicro + value,
      theirs: summary.portfolioValueMicro,
      unprovenBecause: noMarks,
      explain: explainCash,
    }),
    compare(judge, { ...common, field: 'open_cost_basis_micro', ours: basis, theirs: summary.openCostBasisMicro }),
    compare(judge, {
      ...common,
      field: 'open_unrealized_pnl_micro',
      ours: value - basis,
      theirs: summary.openUnrealizedPnlMicro,
      unprovenBecause: noMarks,
    }),
  ];
}

function cashExplanation(a: AccountFigures): string {
  return (
    `cash = deposits ${formatUnits(a.depositsMicro)} − withdrawals ${formatUnits(a.withdrawalsMicro)} + trading and redemptions ` +
    `(realised ${formatUnits(a.realisedPnlMicro)}, payouts ${formatUnits(a.redemptionPayoutsMicro)}) − fees ${formatUnits(a.feesPaidMicro)} ` +
    `+ maker rebates ${formatUnits(a.makerRebatesMicro)} + LP incentives ${formatUnits(a.lpIncentivesMicro)}`
  );
}

/**
 * A settled-PnL bucket at its mark: collateral, flows and position count from our ledger; the
 * positions value is the venue's (its marks at that instant are not in the warehouse), so
 * lifetime PnL = our collateral + their positions value − our inflow + our outflow.
 */
export function compareBucket(
  judge: Judge,
  bucket: VenuePnlBucket,
  ours: AccountFigures,
  openPositions: number,
): ComparisonRow[] {
  const lifetime = ours.cashMicro + bucket.positionsValueMicro - ours.depositsMicro + ours.withdrawalsMicro;
  // Coverage is judged at the mark, the instant the figures describe; the row names the bucket.
  const at = {
    scope: 'pnl_settled' as const,
    reportedAtMs: bucket.markAtMs,
    figure: { kind: 'account' as const },
    explain: () =>
      `bucket ${isoTime(bucket.bucketAtMs)} marked ${isoTime(bucket.markAtMs)}; positions value ${formatUnits(bucket.positionsValueMicro)} is the venue's; ${cashExplanation(ours)}`,
  };
  return [
    compare(judge, { ...at, field: 'collateral_micro', ours: ours.cashMicro, theirs: bucket.collateralMicro }),
    compare(judge, { ...at, field: 'cumulative_inflow_micro', ours: ours.depositsMicro, theirs: bucket.inflowMicro }),
    compare(judge, {
      ...at,
      field: 'cumulative_outflow_micro',
      ours: ours.withdrawalsMicro,
      theirs: bucket.outflowMicro,
    }),
    compare(judge, { ...at, field: 'lifetime_pnl_micro', ours: lifetime, theirs: bucket.lifetimePnlMicro }),
    compare(judge, { ...at, field: 'position_count', ours: BigInt(openPositions), theirs: bucket.positionCount }),
  ].map((row) => ({ ...row, reportedAtMs: bucket.bucketAtMs }));
}

const BUCKET_FIELDS = [
  'collateral_micro',
  'cumulative_inflow_micro',
  'cumulative_outflow_micro',
  'lifetime_pnl_micro',
  'position_count',
] as const;

/**
 * Buckets the venue served that nobody saw (the PnL job was down or failing): each of a bucket's
 * figures, unproven because of that gap — there is no figure of theirs to hold ours against, so
 * neither is shown (0) and the row is never ok nor different. Reported at the bucket seen after
 * them: by then they had been served.
 */
export function compareUnobservedBuckets(judge: Judge, gap: UnobservedBuckets): ComparisonRow[] {
  const because = `no bucket observed between ${isoTime(gap.afterMs)} and ${isoTime(gap.beforeMs)} — capture gap sync/pnl (buckets_not_observed): ${gap.detail}`;
  return BUCKET_FIELDS.map((field) =>
    compare(judge, {
      scope: 'pnl_settled',
      field,
      ours: 0n,
      theirs: 0n,
      reportedAtMs: gap.beforeMs,
      figure: { kind: 'account' },
      unprovenBecause: because,
    }),
  );
}

/** Maker rebates (rebuilt from maker fills by the venue's rule), LP incentives (from their payouts) and the total. */
export function compareRebates(judge: Judge, rebates: VenueRebates, ours: AccountFigures): ComparisonRow[] {
  const common = { scope: 'rebates' as const, reportedAtMs: rebates.observedAtMs };
  return [
    compare(judge, {
      ...common,
      field: 'maker_rebate_micro',
      ours: ours.makerRebatesMicro,
      theirs: rebates.makerRebateMicro,
      figure: { kind: 'maker_rebate' },
    }),
    compare(judge, {
      ...common,
      field: 'lp_incentive_micro',
      ours: ours.lpIncentivesMicro,
      theirs: rebates.lpIncentiveMicro,
      figure: { kind: 'lp_incentive' },
    }),
    compare(judge, {
      ...common,
      field: 'total_micro',
      ours: ours.makerRebatesMicro + ours.lpIncentivesMicro + rebates.vipRebateMicro,
      theirs: rebates.totalMicro,
      figure: { kind: 'rebates_total' },
      explain: () =>
        `maker ${formatUnits(ours.makerRebatesMicro)} + LP ${formatUnits(ours.lpIncentivesMicro)} + VIP ${formatUnits(rebates.vipRebateMicro)} (the venue's)`,
    }),
  ];
}

/**
 * Per token: the fees the fill records charged against the fee schedule of the venue rules for the
 * same fills. Without rules there is no schedule to hold them against: ours are the fills' own
 * fees (what cash uses), and the row says it was not checked.
 */
export function compareFees(
  judge: Judge,
  tokens: Iterable<TokenFigures>,
  rules: VenueRules | undefined,
): ComparisonRow[] {
  const rows: ComparisonRow[] = [];
  for (const t of tokens) {
    if (t.fills.length === 0) continue;
    rows.push(
      compare(judge, {
        scope: 'fees',
        tokenId: t.tokenId,
        conditionId: t.conditionId,
        field: 'fee_micro',
        ours: rules ? t.feesByRuleMicro : t.feesPaidMicro,
        theirs: t.feesPaidMicro,
        unprovenBecause: rules
          ? undefined
          : "not checked: no fee schedule (--venue-rules); the interface publishes none, so the fees are the fills' own",
        reportedAtMs: t.fills.at(-1)!.atMs,
        figure: { kind: 'position', tokenId: t.tokenId, resolved: false },
        explain: () =>
          t.fills
            .filter((f) => f.feeMicro > 0n || f.role !== 'MAKER')
            .slice(-12)
            .map(describeFill)
            .join('; '),
      }),
    );
  }
  return rows;
}

/** Each redemption the venue announced: the shares it redeemed and what it paid, against our holding then. */
export function compareRedemptions(judge: Judge, tokens: Iterable<TokenFigures>): ComparisonRow[] {
  const rows: ComparisonRow[] = [];
  for (const t of tokens) {
    for (const r of t.redemptions) {
      if (!r.reported) continue;
      const common = {
        scope: 'redemption' as const,
        tokenId: t.tokenId,
        conditionId: t.conditionId,
        reportedAtMs: r.atMs,
        figure: { kind: 'position' as const, tokenId: t.tokenId, resolved: false },
        explain: () =>
          `redeemed at ${formatUnits(r.resolutionPriceMicro)} on ${isoTime(r.atMs)}; ${explainPosition(t)}`,
      };
      rows.push(
        compare(judge, { ...common, field: 'shares_micro', ours: r.sharesMicro, theirs: r.reported.sharesMicro }),
      );
      rows.push(
        compare(judge, { ...common, field: 'payout_micro', ours: r.payoutMicro, theirs: r.reported.payoutMicro }),
      );
    }
  }
  return rows;
}

/** Per token: the shares the venue says the account's orders matched, against the shares of their fills. */
export function compareOrderFills(
  judge: Judge,
  completeness: FillCompleteness,
  conditionOf: (tokenId: string) => string,
): ComparisonRow[] {
  return completeness.byToken.map((t) =>
    compare(judge, {
      scope: 'orders',
      tokenId: t.tokenId,
      conditionId: conditionOf(t.tokenId),
      field: 'size_matched_micro',
      ours: t.filledMicro,
      theirs: t.matchedMicro,
      reportedAtMs: t.reportedAtMs,
      figure: { kind: 'position', tokenId: t.tokenId, resolved: false },
      explain: () =>
        t.shortfalls
          .map((s) => {
            const fills = s.fills.length > 0 ? `: ${s.fills.map(describeFill).join('; ')}` : '';
            return `order ${s.order.orderId} (${s.order.side}) matched ${formatShares(s.order.matchedMicro)} by the venue's word, its fills hold ${formatShares(s.filledMicro)}${fills}`;
          })
          .join(' | '),
    }),
  );
}
