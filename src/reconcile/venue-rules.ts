import { readFileSync } from 'node:fs';

/**
 * The venue's own arithmetic. What the data gives is taken from the data: each fill's fee is the
 * `fee_micro` it carries, and cash moves by it. What the data does not give — the fee schedule a
 * fill's fee should follow, the share of the taker's fee credited to the maker (no fill or frame
 * carries a rebate), and how the venue rounds them — is a setting (`--venue-rules`): the
 * interface publishes no fee schedule, so nothing here assumes one. Without it the checks that need
 * it are reported unproven, saying why.
 */

export const MICRO = 1_000_000n;

export const ROUNDINGS = ['floor', 'half_up', 'ceil'] as const;
export type Rounding = (typeof ROUNDINGS)[number];

export interface VenueRules {
  /** Where the rules came from: a named set (`simulator`) or the file. */
  name: string;
  /** Taker fee rate on min(p, 1 − p) × shares, in basis points. */
  takerFeeBps: bigint;
  /** Share of the taker fee of a fill credited to its maker, in percent. */
  makerRebatePercent: bigint;
  /** How a fee and a rebate are brought to whole micro-units. */
  rounding: Rounding;
}

/** The built-in simulator's schedule (src/simulator/README.md, "Accounting"): an example, never a default. */
export const SIMULATOR_VENUE_RULES: VenueRules = {
  name: 'simulator',
  takerFeeBps: 100n,
  makerRebatePercent: 25n,
  rounding: 'floor',
};

/** Named rule sets `--venue-rules` accepts besides a file. */
export const NAMED_VENUE_RULES: Readonly<Record<string, VenueRules>> = { simulator: SIMULATOR_VENUE_RULES };

/**
 * `--venue-rules NAME|FILE`: a named set, or a JSON file
 * `{"taker_fee_bps": 100, "maker_rebate_percent": 25, "rounding": "floor"}` (whole numbers;
 * rounding `floor`, `half_up` or `ceil`). Throws with the tail of a sentence ("is not …").
 */
export function parseVenueRules(text: string): VenueRules {
  const named = NAMED_VENUE_RULES[text.trim()];
  if (named) return named;
  let body: string;
  try {
    body = readFileSync(text.trim(), 'utf8');
  } catch {
    throw new Error(`is neither a named rule set (${Object.keys(NAMED_VENUE_RULES).join(', ')}) nor a readable file`);
  }
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new Error('is not a JSON file');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error('does not hold a JSON object');
  const o = json as Record<string, unknown>;
  const unknown = Object.keys(o).filter((k) => !['taker_fee_bps', 'maker_rebate_percent', 'rounding'].includes(k));
  if (unknown.length > 0)
    throw new Error(
      `has unknown field(s) ${unknown.join(', ')} (known: taker_fee_bps, maker_rebate_percent, rounding)`,
    );
  const whole = (field: string, max: number): bigint => {
    const v = o[field];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max)
      throw new Error(`has no ${field} as a whole number from 0 to ${max}`);
    return BigInt(v);
  };
  const rounding = ROUNDINGS.find((r) => r === o.rounding);
  if (!rounding) throw new Error(`has no rounding (one of ${ROUNDINGS.join(', ')})`);
  return {
    name: text.trim(),
    takerFeeBps: whole('taker_fee_bps', 10_000),
    makerRebatePercent: whole('maker_rebate_percent', 100),
    rounding,
  };
}

/** The rules in words, for the report. */
export function describeRules(rules: VenueRules): string {
  return `${rules.name}: taker fee ${rules.takerFeeBps} bps of min(p, 1 − p) × shares, maker rebate ${rules.makerRebatePercent} % of it, rounded ${rules.rounding}`;
}

/** numerator ÷ denominator (both ≥ 0) to a whole number, as the venue rounds. */
function divide(numerator: bigint, denominator: bigint, rounding: Rounding): bigint {
  switch (rounding) {
    case 'floor':
      return numerator / denominator;
    case 'ceil':
      return (numerator + denominator - 1n) / denominator;
    case 'half_up':
      return (2n * numerator + denominator) / (2n * denominator);
  }
}

/** price × shares in collateral: exact on the venue's grids (whole lots, prices on the tick); floored otherwise. */
export function notional(priceMicro: bigint, sharesMicro: bigint): bigint {
  return (priceMicro * sharesMicro) / MICRO;
}

/** The taker's fee of a fill by the schedule: shares × min(p, 1 − p) × bps, rounded; p being the fill's price
 * (symmetric in p and 1 − p). */
export function takerFee(rules: VenueRules, priceMicro: bigint, sharesMicro: bigint): bigint {
  const edge = priceMicro < MICRO - priceMicro ? priceMicro : MICRO - priceMicro;
  return divide(sharesMicro * edge * rules.takerFeeBps, MICRO * 10_000n, rules.rounding);
}

/**
 * What the maker of a fill is credited: percent of the taker fee of the same fill, rounded. A
 * maker's fill record carries its own price (p, or 1 − p across outcomes) and no fee; the taker
 * fee is the same either way because it depends on min(p, 1 − p).
 */
export function makerRebate(rules: VenueRules, priceMicro: bigint, sharesMicro: bigint): bigint {
  return divide(takerFee(rules, priceMicro, sharesMicro) * rules.makerRebatePercent, 100n, rules.rounding);
}

/** Average price as the venue shows it: ⌊basis × 10⁶ / shares⌋, 0 without shares. */
export function averagePrice(costBasisMicro: bigint, sharesMicro: bigint): bigint {
  return sharesMicro > 0n ? (costBasisMicro * MICRO) / sharesMicro : 0n;
}
