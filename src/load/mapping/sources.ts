import type { ReceivedRecord } from '../../bus/record.ts';

// The read each sync job makes, as the `source` column names it (sql/README.md, "The account").
const REST_READS: Readonly<Record<string, string>> = {
  orders: 'rest:orders/list',
  open_orders: 'rest:open-orders',
  order_trades: 'rest:orders/trades',
  portfolio_trades: 'rest:portfolio/trades',
  activities: 'rest:portfolio/activities',
  positions: 'rest:positions/list',
  portfolio_summary: 'rest:portfolio/summary',
  pnl: 'rest:portfolio/pnl',
};

/** Which read gave a record: `rest:<read>` for a sync job's page, `<stream>` otherwise. */
export function sourceOf(record: ReceivedRecord, stream: string): string {
  return record.source.type === 'sync' ? (REST_READS[record.source.job] ?? `rest:${record.source.job}`) : stream;
}
