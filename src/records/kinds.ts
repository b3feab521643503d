/** Every kind of record the bus carries; a payload type per kind in this folder (index.ts). */
export const RECORD_KINDS = [
  // market stream, via capture
  'trade',
  'book_change',
  'book_snapshot',
  'quote',
  'market_status',
  // capture's own findings: lost coverage, impossible books
  'capture_gap',
  'data_quality',
  // account socket and portfolio SSE, via capture
  'account_event',
  'portfolio_sync',
  // REST resources, via the sync jobs
  'event',
  'market',
  'order',
  'fill',
  'position',
  'portfolio_summary',
  'pnl_settled',
  'rebates',
  'activity',
  'lp_incentive',
  'withdrawal_assets',
  // price feeds (SSE), via capture
  'price',
  'oracle_pro_price',
  // sync: lookup maps of list pages, sports sections, categories, account batches
  'lookup',
  'sports_sections',
  'category',
  'account_batch',
] as const;

export type RecordKind = (typeof RECORD_KINDS)[number];

const KNOWN_KINDS: ReadonlySet<string> = new Set(RECORD_KINDS);

export function isRecordKind(value: string): value is RecordKind {
  return KNOWN_KINDS.has(value);
}
