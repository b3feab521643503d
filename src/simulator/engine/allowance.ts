import { MICRO, notionalFloor } from '../money.ts';
import { takerFee, type FeeSchedule } from './fees.ts';
import type { SimOrder } from '../orders.ts';

/**
 * How much more an incoming order may take: shares for limit orders and market sells, collateral
 * for a market buy (its budget covers notional and fee, and only whole lots are bought).
 */
export class TakerAllowance {
  #shares: bigint;
  #budget: bigint;
  readonly #byBudget: boolean;

  constructor(
    order: SimOrder,
    private readonly fees: FeeSchedule,
    private readonly lotMicro: bigint,
  ) {
    this.#byBudget = order.type === 'MARKET' && order.side === 'BUY';
    this.#shares = order.originalSizeMicro === undefined ? 0n : order.originalSizeMicro - order.sizeMatchedMicro;
    this.#budget = (order.collateralAmountMicro ?? 0n) - order.notionalMatchedMicro - order.feesMicro;
  }

  /** Shares the order can take at `priceMicro` (its own outcome's price). */
  sharesAt(priceMicro: bigint): bigint {
    if (!this.#byBudget) return this.#shares;
    if (this.#budget <= 0n) return 0n;
    const edge = priceMicro < MICRO - priceMicro ? priceMicro : MICRO - priceMicro;
    // Largest q with price·q + fee(q) ≤ budget, from the rational bound, then whole lots.
    let q = (this.#budget * MICRO * 10_000n) / (priceMicro * 10_000n + edge * BigInt(this.fees.takerFeeBps));
    q -= q % this.lotMicro;
    while (q > 0n && this.costOf(priceMicro, q) > this.#budget) q -= this.lotMicro;
    return q;
  }

  costOf(priceMicro: bigint, sharesMicro: bigint): bigint {
    return notionalFloor(priceMicro, sharesMicro) + takerFee(this.fees, priceMicro, sharesMicro);
  }

  take(priceMicro: bigint, sharesMicro: bigint): void {
    if (this.#byBudget) this.#budget -= this.costOf(priceMicro, sharesMicro);
    else this.#shares -= sharesMicro;
  }
}
