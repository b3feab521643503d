import { MICRO } from '../money.ts';

/**
 * Fee model (README, "Fees"): the taker pays `rate × min(p, 1 − p) × shares`, p being its fill
 * price, so fees shrink toward the extremes as on Polymarket; makers pay nothing and receive a
 * rebate of a fixed share of the taker fee of their fill. Both round down to the micro-unit, in
 * the payer's favour, which also makes the per-fill fees of an order never exceed the
 * worst-case fee reserved for it.
 */
export interface FeeSchedule {
  takerFeeBps: number;
  makerRebatePercent: number;
}

export const DEFAULT_FEES: FeeSchedule = { takerFeeBps: 100, makerRebatePercent: 25 };

export function takerFee(schedule: FeeSchedule, priceMicro: bigint, sharesMicro: bigint): bigint {
  const edge = priceMicro < MICRO - priceMicro ? priceMicro : MICRO - priceMicro;
  return (sharesMicro * edge * BigInt(schedule.takerFeeBps)) / (MICRO * 10_000n);
}

/** The most a BUY limited at `limitMicro` can pay in fees: min(p, 1 − p) peaks at min(limit, ½). */
export function worstCaseBuyFee(schedule: FeeSchedule, limitMicro: bigint, sharesMicro: bigint): bigint {
  const half = MICRO / 2n;
  return takerFee(schedule, limitMicro < half ? limitMicro : half, sharesMicro);
}

export function makerRebate(schedule: FeeSchedule, feeMicro: bigint): bigint {
  return (feeMicro * BigInt(schedule.makerRebatePercent)) / 100n;
}
