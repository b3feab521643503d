import { integer, objectField, requiredText, text, type Payload } from '../fields.ts';
import { eventMs, frameOrder } from '../record-times.ts';
import type { MappedRow, Mapper } from '../types.ts';
import { fillRow, orderRow } from './account-rows.ts';

/**
 * A frame of the account stream (§6.3): always an account_events row, whatever its kind; an order
 * frame (`order_accepted`, `order_rejected`, `order_cancelled`, with `order`) also gives the
 * order's observed state in orders, and a `fill` frame (with `fill`) a fill_observations row.
 */
export const accountEventMapper: Mapper<'account_event'> = {
  table: 'account_events',
  map(record) {
    const p = record.payload;
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
          ...amounts(p, subject),
          ...frameOrder(record),
        },
      },
    ];
    if (order)
      rows.push({
        table: 'order_observations',
        row: orderRow(order, account, `ws:${kind}`, at, kind === 'order_cancelled' ? reason : ''),
      });
    if (fill) rows.push({ table: 'fill_observations', row: fillRow(fill, account, `ws:${kind}`, at) });
    return rows;
  },
};

/**
 * The amounts of a frame, typed: shares (of the position, of the fill, or redeemed), the fill's
 * price, a redemption's resolution price and payout, and a collateral amount. The interface names
 * position, redemption and collateral frames but not their fields (§6.3): each is read from the
 * frame or its subject object, under the names the Position, fill and Order objects use
 * (`collateral_micro`, else `amount_micro`, else an order's `collateral_amount_micro`). NULL when
 * the frame has none.
 */
function amounts(p: Payload, subject: Payload) {
  const field = (...names: string[]) => {
    for (const name of names) {
      const value = integer(p, name) ?? (subject === p ? undefined : integer(subject, name));
      if (value !== undefined && value !== '') return value;
    }
    return null;
  };
  return {
    shares_micro: field('shares_micro', 'size_micro'),
    price_micro: field('price_micro'),
    resolution_price_micro: field('resolution_price_micro'),
    payout_micro: field('payout_micro'),
    collateral_micro: field('collateral_micro', 'amount_micro', 'collateral_amount_micro'),
  };
}
