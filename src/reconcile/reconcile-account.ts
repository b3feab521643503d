import {
  compareBucket,
  compareFees,
  compareOrderFills,
  comparePositions,
  compareRedemptions,
  compareRebates,
  compareSummary,
  compareUnobservedBuckets,
  type LedgerAt,
  type ResolvedBy,
} from './compare.ts';
import type { ComparisonRow } from './comparison.ts';
import type { CostMethod } from './cost-basis.ts';
import type { CoverageGap } from './coverage.ts';
import { formatUnits, isoTime } from './explain.ts';
import { checkOrderFills } from './fill-completeness.ts';
import type { AccountFigures, TokenFigures } from './ledger.ts';
import { marketFigures, type MarketFigures } from './markets.ts';
import { replay } from './replay.ts';
import { describeRules, type VenueRules } from './venue-rules.ts';
import type { LedgerInputs } from './warehouse-inputs.ts';
import type { VenueReports } from './warehouse-reports.ts';

export interface ReconcileOptions {
  method: CostMethod;
  /** Differences up to this many micro-units count as equal (default 0: these are integers). */
  toleranceMicro: bigint;
  /** The venue's rules that data does not give (--venue-rules); undefined: the checks needing them are unproven. */
  rules: VenueRules | undefined;
  /** The venue's figures reported in [fromMs, toMs] are checked; fills up to toMs are replayed, all of them. */
  fromMs: number;
  toMs: number;
}

/** What a result relied on: how much of each input, and where it was not whole. */
export interface Coverage {
  fills: number;
  firstFillMs: number | undefined;
  lastFillMs: number | undefined;
  ordersChecked: number;
  deposits: number;
  withdrawals: number;
  splits: number;
  merges: number;
  redemptionFrames: number;
  redemptionsByCompletion: number;
  lpPayouts: number;
  accountStreamFrames: number;
  gaps: CoverageGap[];
  /** The venue rules the checks of fees and maker rebates used (undefined: none given, those checks unproven). */
  venueRules: string | undefined;
  /** Inputs taken on the venue's word, because nothing else in the warehouse gives them. */
  fromVenue: string[];
}

export interface AccountReconciliation {
  account: string;
  rows: ComparisonRow[];
  /** Our ledger as of the window's end. */
  ledger: { account: AccountFigures; tokens: TokenFigures[]; markets: MarketFigures[] };
  coverage: Coverage;
  /** The window: the venue's figures reported in [fromMs, toMs] were checked; `end` says why it ends there. */
  window?: { fromMs: number; toMs: number; end: string };
  /** Which of the venue's reports were compared. */
  compared: {
    positionsAsOfMs?: number;
    summaryAsOfMs?: number;
    buckets: number;
    rebatesAtMs?: number;
    unobservedBucketGaps: number;
  };
}

/**
 * Without venue rules no maker rebate is credited: every figure that holds cash (and the rebates)
 * is unproven from the account's first maker fill on. Positions do not move with rebates.
 */
function withoutRules(inputs: LedgerInputs, rules: VenueRules | undefined): CoverageGap[] {
  if (rules) return [];
  const firstMaker = inputs.fills.find((f) => f.role === 'MAKER');
  if (!firstMaker) return [];
  return [
    {
      input: 'venue_rules',
      fromMs: firstMaker.atMs,
      toMs: Infinity,
      reason: `no venue rules (--venue-rules): the share of the taker fee credited to a maker is in no data, so no maker rebate is credited from the first maker fill on (${isoTime(firstMaker.atMs)})`,
    },
  ];
}

/**
 * One account, from data already read: replays the ledger, stopping at every instant the venue
 * reported something, and compares. Pure: the same inputs always give the same rows.
 */
export function reconcileAccountData(
  account: string,
  inputs: LedgerInputs,
  reports: VenueReports,
  captureGaps: readonly CoverageGap[],
  options: ReconcileOptions,
): AccountReconciliation {
  const completeness = checkOrderFills(reports.orders, inputs.fills);
  const vip =
    reports.rebates && reports.rebates.vipRebateMicro > 0n
      ? [
          {
            input: 'rebate_totals' as const,
            fromMs: -Infinity,
            toMs: Infinity,
            reason: `VIP rebates of ${formatUnits(reports.rebates.vipRebateMicro)} are known only as a total`,
          },
        ]
      : [];
  const known = [...captureGaps, ...inputs.gaps, ...vip, ...withoutRules(inputs, options.rules)];
  const gaps = [...known, ...completeness.gaps];
  const judge = { toleranceMicro: options.toleranceMicro, gaps };

  const full = new Set(
    [reports.positions?.asOfMs, reports.summary?.asOfMs].filter((ms): ms is number => ms !== undefined),
  );
  const atFull = new Map<number, LedgerAt>();
  const atLight = new Map<number, { account: AccountFigures; open: number }>();
  const stops = [
    ...full,
    ...reports.buckets.map((b) => b.markAtMs),
    ...(reports.rebates ? [reports.rebates.observedAtMs] : []),
  ];
  const ledger = replay(inputs.events, options, stops, (atMs, l) => {
    if (full.has(atMs))
      atFull.set(atMs, { account: l.accountFigures(), tokens: new Map(l.tokens().map((t) => [t.tokenId, t])) });
    atLight.set(atMs, { account: l.accountFigures(), open: l.openPositionCount() });
  });
  const final = ledger.tokens();
  const redemptionsByCompletion = final.reduce(
    (n, t) => n + t.redemptions.filter((r) => r.reported === undefined).length,
    0,
  );
  const conditionOf = new Map(final.map((t) => [t.tokenId, t.conditionId]));

  const resolvedBy: ResolvedBy = (conditionId, atMs) => {
    const r = inputs.resolutions.get(conditionId);
    if (!r) return false;
    const since = r.resolvedAtMs ?? r.completedAtMs ?? (r.payouts.size > 0 ? -Infinity : Infinity);
    return since <= atMs;
  };

  const rows: ComparisonRow[] = [];
  const { positions, summary, rebates } = reports;
  if (positions) rows.push(...comparePositions(judge, positions, atFull.get(positions.asOfMs)!, resolvedBy));
  if (summary)
    rows.push(...compareSummary(judge, summary, atFull.get(summary.asOfMs)!, reports.summaryPositions ?? positions));
  for (const bucket of reports.buckets) {
    const at = atLight.get(bucket.markAtMs)!;
    rows.push(...compareBucket(judge, bucket, at.account, at.open));
  }
  for (const gap of reports.unobservedBuckets ?? []) rows.push(...compareUnobservedBuckets(judge, gap));
  if (rebates) rows.push(...compareRebates(judge, rebates, atLight.get(rebates.observedAtMs)!.account));
  // Figures from the whole history count when the venue reported them within the window.
  const inWindow = (row: ComparisonRow): boolean => row.reportedAtMs >= options.fromMs;
  rows.push(...compareFees(judge, final, options.rules).filter(inWindow));
  rows.push(...compareRedemptions(judge, final).filter(inWindow));
  // The order check finds the missing fills; it is not itself unproven by what it found.
  rows.push(
    ...compareOrderFills({ ...judge, gaps: known }, completeness, (tokenId) => conditionOf.get(tokenId) ?? '').filter(
      inWindow,
    ),
  );

  return {
    account,
    rows,
    ledger: { account: ledger.accountFigures(), tokens: final, markets: marketFigures(final) },
    coverage: {
      fills: inputs.fills.length,
      firstFillMs: inputs.fills[0]?.atMs,
      lastFillMs: inputs.fills.at(-1)?.atMs,
      ordersChecked: completeness.ordersChecked,
      ...inputs.counts,
      redemptionsByCompletion,
      accountStreamFrames: inputs.accountStreamFrames,
      gaps,
      venueRules: options.rules ? describeRules(options.rules) : undefined,
      fromVenue: [
        'marks (current_price_micro of the positions read) for position values',
        "each settled-PnL bucket's positions_value_micro",
        'VIP rebates (vip_rebate_micro)',
        ...(redemptionsByCompletion > 0
          ? ['resolution prices for redemptions known only from market_resolution_completed']
          : []),
      ],
    },
    compared: {
      positionsAsOfMs: positions?.asOfMs,
      summaryAsOfMs: summary?.asOfMs,
      buckets: reports.buckets.length,
      unobservedBucketGaps: reports.unobservedBuckets?.length ?? 0,
      rebatesAtMs: rebates?.observedAtMs,
    },
  };
}
