import type { Exchange } from '../engine/exchange.ts';
import type { PlaceRequest } from '../engine/place-request.ts';
import type { SimOrder } from '../engine/types.ts';
import { Rejection } from '../problems.ts';

/** Counters a run can be checked with. */
export interface TraderStats {
  steps: number;
  placed: number;
  rejected: Record<string, number>;
}

export function newStats(): TraderStats {
  return { steps: 0, placed: 0, rejected: {} };
}

type Draft = Pick<PlaceRequest, 'tokenId' | 'side' | 'type' | 'timeInForce'> & Partial<PlaceRequest>;

/** Places an order for a synthetic trader; a synchronous refusal is counted, not thrown. */
export function tryPlace(exchange: Exchange, stats: TraderStats, accountId: string, draft: Draft): SimOrder | undefined {
  const req: PlaceRequest = {
    postOnly: false,
    priceMicro: undefined,
    sharesMicro: undefined,
    collateralAmountMicro: undefined,
    expirationUnixSeconds: undefined,
    ...draft,
  };
  try {
    const order = exchange.place(accountId, req);
    stats.placed++;
    return order;
  } catch (err) {
    if (!(err instanceof Rejection)) throw err;
    stats.rejected[err.code] = (stats.rejected[err.code] ?? 0) + 1;
    return undefined;
  }
}
