/**
 * The venue's own arithmetic, as its accounting rules state it (src/simulator/README.md,
 * "Accounting"). These are the only places a reconciliation rounds, and it rounds as the venue does.
 */

export const MICRO = 1_000_000n;

export interface VenueRules {
  /** Taker fee rate on min(p, 1 − p) × shares, in basis points. */
  takerFeeBps: bigint;
  /** Share of the taker fee of a fill credited to its maker, in percent. */
  makerRebatePercent: bigint;
}

export const DEFAULT_VENUE_RULES: VenueRules = { takerFeeBps: 100n, makerRebatePercent: 25n };

/** price × shares in collateral: exact on the venue's grids (whole lots, prices on the tick); floored otherwise. */
export function notional(priceMicro: bigint, sharesMicro: bigint): bigint {
  return (priceMicro * sharesMicro) / MICRO;
}

/** The taker's fee of a fill: ⌊shares × min(p, 1 − p) × bps⌋, p being the fill's price (symmetric in p and 1 − p). */
export function takerFee(rules: VenueRules, priceMicro: bigint, sharesMicro: bigint): bigint {
  const edge = priceMicro < MICRO - priceMicro ? priceMicro : MICRO - priceMicro;
  return (sharesMicro * edge * rules.takerFeeBps) / (MICRO * 10_000n);
}

/**
 * What the maker of a fill is credited: ⌊percent of the taker fee of the same fill⌋. A maker's
 * fill record carries its own price (p, or 1 − p across outcomes) and no fee; the taker fee is the
 * same either way because it depends on min(p, 1 − p).
 */
export function makerRebate(rules: VenueRules, priceMicro: bigint, sharesMicro: bigint): bigint {
  return (takerFee(rules, priceMicro, sharesMicro) * rules.makerRebatePercent) / 100n;
}

/** Average price as the venue shows it: ⌊basis × 10⁶ / shares⌋, 0 without shares. */
export function averagePrice(costBasisMicro: bigint, sharesMicro: bigint): bigint {
  return sharesMicro > 0n ? (costBasisMicro * MICRO) / sharesMicro : 0n;
}
