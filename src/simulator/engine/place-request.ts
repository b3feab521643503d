import type { OrderType, Side, TimeInForce } from '../orders.ts';

/** An order placement as the engine receives it (§2.1 request fields), already type-checked. */
export interface PlaceRequest {
  tokenId: string;
  side: Side;
  type: OrderType;
  timeInForce: TimeInForce;
  postOnly: boolean;
  priceMicro: bigint | undefined;
  sharesMicro: bigint | undefined;
  /** MARKET BUY budget (the request field the interface does not show; README). */
  collateralAmountMicro: bigint | undefined;
  expirationUnixSeconds: number | undefined;
}

/** Limits of §8.6 and the choices the README lists for what it leaves open. */
export interface OrderLimits {
  minNotionalMicro: bigint;
  maxNotionalMicro: bigint;
  maxMarketSellSharesMicro: bigint;
  minGtdHorizonSeconds: number;
}

export const DEFAULT_ORDER_LIMITS: OrderLimits = {
  minNotionalMicro: 100_000n,
  maxNotionalMicro: 100_000_000_000n,
  maxMarketSellSharesMicro: 1_000_000_000_000n,
  minGtdHorizonSeconds: 60,
};
