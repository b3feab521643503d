import type { Order } from '../api/schemas/order.ts';
import type { Wire } from './json.ts';
import { loose, object, requiredScalar } from './schema.ts';

/** What a `order` record is made from: the item as the venue's client parsed it (src/api/schemas). */
export type OrderSource = Order;

/**
 * `order` — sync.orders; stored in `orders`. One observed state of an order. Made by the `orders` and `open-orders`
 * jobs.
 * The REST item as the client parsed it, `_micro` bigints as decimal strings, unknown fields kept;
 * `raw` holds its JSON as received.
 */
export type OrderPayload = Wire<OrderSource>;

/** An `order` payload at the bus boundary: its id and status, its failure (other fields read by the loader,
 * tolerantly). */
export const orderSchema = loose({ internal_id: requiredScalar, status: requiredScalar, failure: object });
