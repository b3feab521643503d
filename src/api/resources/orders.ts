import type { Fetched, VenueCaller } from '../caller.ts';
import { ENDPOINTS, endpointName, type Endpoint } from '../endpoints.ts';
import { bodyWithCursor, followCursor } from '../paging.ts';
import { checkPageSize, PAGE_SIZE } from '../params.ts';
import {
  BatchSchema,
  OrderbookSchema,
  OrderSchema,
  OrdersPageSchema,
  OrderTradesResponseSchema,
  SignedOrderSchema,
  type Batch,
  type Order,
  type Orderbook,
  type OrdersPage,
  type OrderTradesResponse,
} from '../schemas/index.ts';

/**
 * Body of the list endpoints. Their filters are not shown (open orders may carry `token_ids`);
 * whatever is given is sent as is. `cursor` travels in the body: the interface does not say where
 * a POST list takes it, and the body is where the rest of its parameters are.
 */
export interface ListBody {
  token_ids?: readonly string[];
  /** Page size; the interface shows no bounds for these lists, only a positive integer is checked. */
  limit?: number;
  [filter: string]: unknown;
}

/** Orders, their fills, the order book, and account batches (for check_status). */
export class OrderReads {
  constructor(private readonly caller: VenueCaller) {}

  order(orderId: string, signal?: AbortSignal): Promise<Fetched<Order>> {
    return this.caller.call({ endpoint: ENDPOINTS.order, params: { order_id: orderId }, schema: OrderSchema, signal });
  }

  orderByHash(orderHash: string, signal?: AbortSignal): Promise<Fetched<Order>> {
    return this.caller.call({
      endpoint: ENDPOINTS.orderByHash,
      params: { order_hash: orderHash },
      schema: SignedOrderSchema,
      signal,
    });
  }

  orderTrades(orderId: string, signal?: AbortSignal): Promise<Fetched<OrderTradesResponse>> {
    return this.caller.call({
      endpoint: ENDPOINTS.orderTrades,
      params: { order_id: orderId },
      schema: OrderTradesResponseSchema,
      signal,
    });
  }

  /** Every page of POST /trade/v1/orders/list, to the end (the interface requires following it). */
  orderPages(body: ListBody = {}, signal?: AbortSignal): AsyncGenerator<Fetched<OrdersPage>, void, undefined> {
    return this.#listPages(ENDPOINTS.ordersList, body, signal);
  }

  /** One page of POST /trade/v1/orders/list at `cursor` (a pass resuming from a saved one); the same `body` on every
   * page. */
  ordersPage(body: ListBody, cursor: string | undefined, signal?: AbortSignal): Promise<Fetched<OrdersPage>> {
    return this.#page(ENDPOINTS.ordersList, body, cursor, signal);
  }

  /** Every page of POST /trade/v1/portfolio/open-orders/list (read cost 5 each). */
  openOrderPages(body: ListBody = {}, signal?: AbortSignal): AsyncGenerator<Fetched<OrdersPage>, void, undefined> {
    return this.#listPages(ENDPOINTS.openOrders, body, signal);
  }

  /** One page of POST /trade/v1/portfolio/open-orders/list at `cursor`. */
  openOrdersPage(body: ListBody, cursor: string | undefined, signal?: AbortSignal): Promise<Fetched<OrdersPage>> {
    return this.#page(ENDPOINTS.openOrders, body, cursor, signal);
  }

  orderbook(tokenId: string, signal?: AbortSignal): Promise<Fetched<Orderbook>> {
    return this.caller.call({
      endpoint: ENDPOINTS.orderbook,
      params: { token_id: tokenId },
      schema: OrderbookSchema,
      signal,
    });
  }

  batch(batchHash: string, signal?: AbortSignal): Promise<Fetched<Batch>> {
    return this.caller.call({
      endpoint: ENDPOINTS.batch,
      params: { batch_hash: batchHash },
      schema: BatchSchema,
      signal,
    });
  }

  #listPages(
    endpoint: Endpoint,
    body: ListBody,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<Fetched<OrdersPage>, void, undefined> {
    // Checked now, not at the first page: a bad size is the caller's mistake, told at the call.
    checkPageSize(endpointName(endpoint), body.limit, PAGE_SIZE.unbounded);
    const filters = Object.freeze({ ...body });
    return followCursor(endpointName(endpoint), (cursor) => this.#page(endpoint, filters, cursor, signal));
  }

  #page(
    endpoint: Endpoint,
    body: ListBody,
    cursor: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Fetched<OrdersPage>> {
    checkPageSize(endpointName(endpoint), body.limit, PAGE_SIZE.unbounded);
    return this.caller.call({ endpoint, body: bodyWithCursor(body, cursor), schema: OrdersPageSchema, signal });
  }
}
