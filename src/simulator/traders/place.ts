import type { Exchange } from '../engine/exchange.ts';
import type { PlaceRequest } from '../engine/place-request.ts';
import type { SimOrder } from '../orders.ts';
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
export function tryPlace(
  exchange: Exchange,
  stats: TraderStats,
  accountId: string,
  draft: Draft,
): SimOrder | undefined {
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

/** Orders a trader keeps track of per market, by id (a saved venue). */
export type HeldOrders = Array<[conditionId: string, orderIds: string[]]>;
export type OrderLookup = (id: string) => SimOrder | undefined;

export function heldIds(held: Map<string, SimOrder[]>): HeldOrders {
  return [...held].map(([conditionId, orders]) => [conditionId, orders.map((o) => o.id)]);
}

/** The orders of `ids` the venue still holds (settled ones may have left memory). */
export function ordersOf(ids: string[], orderById: OrderLookup): SimOrder[] {
  return ids.map(orderById).filter((o): o is SimOrder => o !== undefined);
}

export function restoreHeldOrders(into: Map<string, SimOrder[]>, held: HeldOrders, orderById: OrderLookup): void {
  for (const [conditionId, ids] of held) into.set(conditionId, ordersOf(ids, orderById));
}
