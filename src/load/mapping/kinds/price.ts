import { text } from '../fields.ts';
import { eventMs } from '../record-times.ts';
import type { TablesOf } from '../../../records/index.ts';
import type { Mapper } from '../types.ts';

/** One price event of a price feed (`price`, `oracle_pro_price`): one row of the feed's table. */
function priceMapper<K extends 'price' | 'oracle_pro_price'>(table: TablesOf<K>): Mapper<K> {
  return {
    table,
    map(record) {
      const p = record.payload;
      return [
        {
          table,
          row: {
            symbol: String(p.symbol),
            price_micro: p.price_micro,
            price_text: text(p, 'price_text', text(p, 'price')),
            observed_at: eventMs(record, p, ['observed_at', 'ts']),
            source: text(p, 'source'),
            event_id: text(p, 'event_id'),
            connection_id: record.source.type === 'stream' ? record.source.connection : '',
          },
        },
      ];
    },
  };
}

export const pricesMapper = priceMapper<'price'>('prices');
export const oracleProPriceMapper = priceMapper<'oracle_pro_price'>('oracle_pro_prices');
