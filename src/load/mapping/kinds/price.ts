import { requiredInteger, requiredText, text } from '../fields.ts';
import { eventMs } from '../record-times.ts';
import { streamPayload } from '../stream-payload.ts';
import type { Mapper, TableName } from '../types.ts';

/** One price event of a price feed (`price`, `oracle_pro_price`): one row of the feed's table. */
function priceMapper(table: TableName & ('prices' | 'oracle_pro_prices')): Mapper {
  return {
    table,
    map(record) {
      const p = streamPayload(record);
      return [
        {
          table,
          row: {
            symbol: requiredText(p, 'symbol'),
            price_micro: requiredInteger(p, 'price_micro'),
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

export const pricesMapper = priceMapper('prices');
export const oracleProPriceMapper = priceMapper('oracle_pro_prices');
