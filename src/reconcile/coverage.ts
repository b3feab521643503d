/**
 * What a result relied on, and where that was not whole. A gap in an input the rebuilt figure
 * depends on makes the figure unproven — equal or not, we cannot vouch for it.
 */

/** Inputs of the ledger whose coverage can break. */
export type CoverageInput =
  | 'fills'
  | 'activities'
  | 'account_stream'
  /** Credits the venue reports only as a running total (VIP rebates): their times are unknown. */
  | 'rebate_totals'
  /** Maker rebates when no venue rules say what share of the taker fee a maker is credited (--venue-rules). */
  | 'venue_rules';

export interface CoverageGap {
  input: CoverageInput;
  /** Epoch ms; -Infinity when the start is not known. */
  fromMs: number;
  /** Epoch ms; Infinity while the gap is open or its end is not known. */
  toMs: number;
  /** Set when the gap concerns one token only (fills missing from one order). */
  tokenId?: string;
  /** In words: what is missing and how we know. */
  reason: string;
}

/** The figures a comparison checks, by what they depend on. */
export type Figure =
  /** One token's position; `resolved`: its market had a final resolution, so its redemption matters. */
  | { kind: 'position'; tokenId: string; resolved: boolean }
  /** Collateral, values and PnL of the whole account (they depend on everything). */
  | { kind: 'account' }
  /** Maker rebates: fills only. */
  | { kind: 'maker_rebate' }
  /** LP incentives: their payouts are seen on the account stream only. */
  | { kind: 'lp_incentive' }
  /** The rebates total: maker rebates and LP incentives. */
  | { kind: 'rebates_total' };

/** The gaps that make `figure`, as the venue reported it at `asOfMs`, unproven. */
export function gapsAffecting(gaps: readonly CoverageGap[], figure: Figure, asOfMs: number): CoverageGap[] {
  return gaps.filter((gap) => gap.fromMs <= asOfMs && affects(gap, figure));
}

function affects(gap: CoverageGap, figure: Figure): boolean {
  switch (figure.kind) {
    case 'account':
      return true;
    case 'lp_incentive':
      return gap.input === 'account_stream';
    case 'maker_rebate':
      return gap.input === 'fills' || gap.input === 'venue_rules';
    case 'rebates_total':
      return gap.input === 'fills' || gap.input === 'account_stream' || gap.input === 'venue_rules';
    case 'position':
      // Rebates move cash only, never a position.
      if (gap.input === 'rebate_totals' || gap.input === 'venue_rules') return false;
      if (gap.tokenId !== undefined) return gap.tokenId === figure.tokenId;
      return gap.input === 'account_stream' ? figure.resolved : true;
  }
}

export function describeGaps(gaps: readonly CoverageGap[]): string {
  const reasons = [...new Set(gaps.map((gap) => gap.reason))];
  const shown = reasons.slice(0, 3).join('; ');
  return reasons.length > 3 ? `${shown}; and ${reasons.length - 3} more` : shown;
}
