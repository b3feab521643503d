import { objectField, requiredText, text, type Payload } from '../fields.ts';
import { eventMs } from '../record-times.ts';
import { streamPayload } from '../stream-payload.ts';
import type { MappedRow, Mapper } from '../types.ts';
import { fillRow, orderRow } from './account-rows.ts';

/**
 * A frame of the account stream (§6.3): always an account_events row, whatever its kind; an order
 * frame (`order_accepted`, `order_rejected`, `order_cancelled`, with `order`) also gives the
 * order's observed state in orders, and a `fill` frame (with `fill`) a fill_observations row.
 */
export const accountEventMapper: Mapper = {
  table: 'account_events',
  map(record) {
    const p = streamPayload(record);
    const kind = requiredText(p, 'kind');
    const account = record.key;
    const at = eventMs(record, p, ['ts']);
    const order = objectField(p, 'order');
    const fill = objectField(p, 'fill');
    const subject: Payload = order ?? fill ?? objectField(p, 'position') ?? p;
    const reason = text(p, 'reason');
    const rows: MappedRow[] = [
      {
        table: 'account_events',
        row: {
          account,
          kind,
          event_at: at,
          order_id: text(order ?? {}, 'internal_id', text(subject, 'order_id')),
          fill_id: fill ? text(fill, 'fill_id', text(fill, 'trade_id')) : '',
          token_id: text(subject, 'token_id'),
          condition_id: text(subject, 'condition_id', text(p, 'condition_id')),
          status: text(subject, 'status'),
          reason,
        },
      },
    ];
    if (order) rows.push({ table: 'orders', row: orderRow(order, account, `ws:${kind}`, at, kind === 'order_cancelled' ? reason : '') });
    if (fill) rows.push({ table: 'fill_observations', row: fillRow(fill, account, `ws:${kind}`, at) });
    return rows;
  },
};
