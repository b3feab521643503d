/**
 * The natural key of a fill record (§2.3), which public trades are too (§6.2: the `trades` channel
 * carries "public fills"): one trade of several fills shares its `trade_id`, each fill has its own
 * `fill_id`. So the key is (`trade_id`, `fill_id`) when a fill id is present, `trade_id` alone
 * otherwise; without a trade id there is no key. Capture deduplicates frames on it, the
 * warehouse's `trades` keeps both columns (`fill_id` '' when absent, so the SQL key is the same
 * pair), and checks of the stored data count on it. Defined once, here.
 */

/** The key's fields, in order. */
export const TRADE_KEY_FIELDS = ['trade_id', 'fill_id'] as const;

/** The key as a SQL tuple over `tapehouse.trades` (its `fill_id` is '' when the venue sent none). */
export const TRADE_KEY_SQL = '(trade_id, fill_id)';

/** The fields whose values make a fill what it is: the same key with other values here is a conflict, not a duplicate.
 */
export const TRADE_CONTENT_FIELDS = [
  'token_id',
  'condition_id',
  'side',
  'price_micro',
  'shares_micro',
  'executed_at',
] as const;

const id = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** The natural key of a trade or fill payload as one string, or null without a trade id. */
export function tradeKey(fill: { readonly trade_id?: unknown; readonly fill_id?: unknown }): string | null {
  const trade = id(fill.trade_id);
  if (trade === null) return null;
  const part = id(fill.fill_id);
  return part === null ? trade : `${trade}\u0000${part}`;
}

/** The content a key stands for, as one string (fields absent or null count as absent). */
export function tradeContent(fill: { readonly [field: string]: unknown }): string {
  return JSON.stringify(TRADE_CONTENT_FIELDS.map((field) => fill[field] ?? null));
}
