/**
 * What `tapehouse export` writes, one file per day per table: the warehouse's own tables (every
 * column but `_raw`, the frame as received, which is for re-deriving, not for analysis), plus the
 * books sampled at an interval (the `book_samples` view). Each is cut into days by `time`, and
 * ordered totally, so two exports of the same rows are the same bytes.
 */
export interface ExportTable {
  /** The file's and the manifest's name. */
  name: string;
  /** Its rows between `{start}` and `{end}` (DateTime64(6) parameters), with `{tokens}` applied where it has tokens. */
  select: string;
  /** The column a day is cut by. */
  time: string;
  /** Has a `token_id` column: `--tokens` narrows it. */
  byToken: boolean;
}

const plain = (name: string, time: string, order: string, byToken = false, source = name): ExportTable => ({
  name,
  time,
  byToken,
  select: `SELECT * EXCEPT (_raw) FROM tapehouse.${source}
    WHERE ${time} >= {start:DateTime64(6, 'UTC')} AND ${time} < {end:DateTime64(6, 'UTC')}${
      byToken ? ` AND (empty({tokens:Array(String)}) OR has({tokens:Array(String)}, token_id))` : ''
    }
    ORDER BY ${order}`,
});

const BUS_ORDER = '_topic, _partition, _offset, _index';

export const EXPORT_TABLES: readonly ExportTable[] = [
  plain('trades', 'executed_at', `token_id, executed_at, sequence, trade_id, ${BUS_ORDER}`, true),
  plain('book_changes', 'changed_at', `token_id, changed_at, sequence, side, price_micro, ${BUS_ORDER}`, true),
  plain('quotes', 'quoted_at', `token_id, quoted_at, sequence, ${BUS_ORDER}`, true),
  plain('market_status', 'status_at', `condition_id, status_at, sequence, kind, ${BUS_ORDER}`),
  plain('capture_gaps', 'gap_start', `gap_start, stream, channel, subject, ${BUS_ORDER}`),
  plain('order_observations', 'observed_at', `account, order_id, observed_at, ${BUS_ORDER}`),
  plain('fills_latest', 'executed_at', `account, executed_at, fill_id, ${BUS_ORDER}`),
  plain('position_snapshots', 'as_of', `account, as_of, ${BUS_ORDER}`),
  plain('activities_latest', 'created_at', `account, created_at, activity_id, ${BUS_ORDER}`),
  plain('account_events', 'event_at', `account, event_at, kind, ${BUS_ORDER}`),
  plain('portfolio_summaries', 'as_of', `account, exchange, as_of, ${BUS_ORDER}`),
  plain('pnl_settled', 'observed_at', `account, bucket_at, observed_at, ${BUS_ORDER}`),
  plain('rebates', 'observed_at', `account, observed_at, ${BUS_ORDER}`),
];

/**
 * Books sampled every `interval_ms` to `depth` levels, one row per level (tardis's
 * book_snapshot_N, long form): samples at the day's start, start + interval, … before its end.
 */
export const BOOK_SAMPLES_TABLE: ExportTable = {
  name: 'book_snapshots',
  time: 'sampled_at',
  byToken: true,
  select: `SELECT * FROM tapehouse.book_samples(token = '', from = {from_text:String}, to = {to_text:String},
             interval_ms = {interval_ms:UInt32}, depth = {depth:UInt32})
    WHERE empty({tokens:Array(String)}) OR has({tokens:Array(String)}, token_id)
    ORDER BY token_id, sampled_at, side DESC, level`,
};
