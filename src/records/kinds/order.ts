import { declareKind, SYNC_TOPIC, BY_ACCOUNT } from '../kind.ts';
import { orderSchema, type OrderPayload, type OrderSource } from '../order.ts';

/** `order`: a REST read of the sync jobs (src/records/order.ts). */
export const order = declareKind<OrderPayload, OrderSource>()({
  name: 'order',
  schema: orderSchema,
  topic: { suffix: 'sync.orders', ...SYNC_TOPIC, key: BY_ACCOUNT },
  tables: ['order_observations'],
  producer: 'sync',
  from: 'sync list jobs',
});
