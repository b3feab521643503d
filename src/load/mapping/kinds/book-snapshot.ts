import type { Json } from '../../../bus/record.ts';
import { arrayField, integer, isObject, MappingError, text, type Payload } from '../fields.ts';
import { eventMs, frameOrder } from '../record-times.ts';
import type { Mapper } from '../types.ts';

/**
 * A full book (capture's ladder at a reconnect, a re-seed from REST, an hourly anchor): one
 * book_snapshots row with the levels as parallel arrays, best first as sent. A level is a
 * `[price, size]` pair or `{price_micro, size_micro}` (`shares_micro` is read too).
 */
export const bookSnapshotMapper: Mapper<'book_snapshot'> = {
  table: 'book_snapshots',
  map(record) {
    const p = record.payload;
    const bids = levels(p, 'bids');
    const asks = levels(p, 'asks');
    return [
      {
        table: 'book_snapshots',
        row: {
          token_id: String(p.token_id),
          condition_id: text(p, 'condition_id'),
          snapshot_at: eventMs(record, p, ['snapshot_at', 'as_of', 'ts']),
          sequence: integer(p, 'sequence'),
          venue_sequence: integer(p, 'venue_sequence'),
          ...frameOrder(record),
          source: SOURCES[text(p, 'source')] ?? text(p, 'source', 'ws:orderbook'),
          kind: text(p, 'kind'),
          reason: text(p, 'reason'),
          bid_prices_micro: bids.prices,
          bid_sizes_micro: bids.sizes,
          ask_prices_micro: asks.prices,
          ask_sizes_micro: asks.sizes,
          book_hash: text(p, 'book_hash', text(p, 'hash')),
        },
      },
    ];
  },
};

/** Capture says `rest` or `stream`; the column names the read. */
const SOURCES: Readonly<Record<string, string>> = { rest: 'rest:orderbook', stream: 'ws:orderbook' };

type Integer = string | number;

function levels(p: Payload, side: 'bids' | 'asks'): { prices: Integer[]; sizes: Integer[] } {
  const prices: Integer[] = [];
  const sizes: Integer[] = [];
  for (const [i, level] of arrayField(p, side).entries()) {
    const [price, size] = priceAndSize(level);
    if (price === undefined || size === undefined)
      throw new MappingError(`${side}[${i}]`, 'is not a {price_micro, size_micro} level');
    prices.push(price);
    sizes.push(size);
  }
  return { prices, sizes };
}

function priceAndSize(level: Json): [Integer | undefined, Integer | undefined] {
  if (Array.isArray(level)) return [integerOf(level[0]), integerOf(level[1])];
  if (!isObject(level)) return [undefined, undefined];
  return [integerOf(level.price_micro), integerOf(level.size_micro ?? level.shares_micro)];
}

function integerOf(value: Json | undefined): Integer | undefined {
  return typeof value === 'string' || typeof value === 'number' ? value : undefined;
}
