import { describeGaps, gapsAffecting, type CoverageGap, type Figure } from './coverage.ts';

export type Status = 'ok' | 'different' | 'unproven';

/** What a figure belongs to: a position, the summary, a settled-PnL bucket, the rebates, an order's fills, a
 * redemption. */
export type Scope = 'position' | 'summary' | 'pnl_settled' | 'rebates' | 'orders' | 'fees' | 'redemption';

/** One figure compared: ours (rebuilt) against theirs (what the venue reported). */
export interface ComparisonRow {
  scope: Scope;
  tokenId: string;
  conditionId: string;
  /** The venue's field name (`shares_micro`, `lifetime_pnl_micro`, …). */
  field: string;
  oursMicro: bigint;
  theirsMicro: bigint;
  differenceMicro: bigint;
  status: Status;
  /** When the venue's figure held (the snapshot's as_of, the bucket, the read). */
  reportedAtMs: number;
  /** Why: the fills behind a position, the gaps that leave it unproven, what is missing. */
  detail: string;
}

export interface Judge {
  toleranceMicro: bigint;
  gaps: readonly CoverageGap[];
}

export interface FigureToCheck {
  scope: Scope;
  tokenId?: string;
  conditionId?: string;
  field: string;
  ours: bigint;
  theirs: bigint;
  reportedAtMs: number;
  figure: Figure;
  /** What explains ours (fills, redemptions); shown with a difference. */
  explain?: () => string;
  /** A reason of its own the figure cannot be proven (no marks for it), besides coverage gaps. */
  unprovenBecause?: string;
}

/**
 * ok when |ours − theirs| is within the tolerance; different when not; unproven whenever a gap in
 * an input the figure depends on started before the venue reported it — equal or not.
 */
export function compare(judge: Judge, check: FigureToCheck): ComparisonRow {
  const difference = check.ours - check.theirs;
  const gaps = gapsAffecting(judge.gaps, check.figure, check.reportedAtMs);
  const reasons = [
    ...(check.unprovenBecause ? [check.unprovenBecause] : []),
    ...(gaps.length > 0 ? [describeGaps(gaps)] : []),
  ];
  const within = (difference < 0n ? -difference : difference) <= judge.toleranceMicro;
  const status: Status = reasons.length > 0 ? 'unproven' : within ? 'ok' : 'different';
  const parts: string[] = [];
  if (status === 'unproven') parts.push(`unproven: ${reasons.join('; ')}`);
  if (!within && check.explain) parts.push(check.explain());
  return {
    scope: check.scope,
    tokenId: check.tokenId ?? '',
    conditionId: check.conditionId ?? '',
    field: check.field,
    oursMicro: check.ours,
    theirsMicro: check.theirs,
    differenceMicro: difference,
    status,
    reportedAtMs: check.reportedAtMs,
    detail: parts.join(' — '),
  };
}
