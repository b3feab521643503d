import { integer, list, loose, scalar, streamData } from './schema.ts';

/** What was wrong with what the venue sent (src/capture/README.md, `data_quality`). */
export type QualityProblem =
  | 'invalid_json'
  | 'not_an_object'
  | 'wrong_types'
  | 'unknown_frame_type'
  | 'unknown_book_kind'
  | 'malformed_book'
  | 'malformed_trade'
  | 'malformed_quote'
  | 'malformed_status'
  | 'malformed_account_event'
  | 'malformed_portfolio_sync'
  | 'bad_micro_value'
  | 'too_deep'
  | 'malformed_level'
  | 'price_out_of_range'
  | 'negative_or_fractional_size'
  | 'zero_size_level'
  | 'duplicate_price'
  | 'crossed_book'
  | 'locked_book'
  | 'subscription_rejected'
  | 'venue_error'
  | 'rest_book_mismatch'
  | 'reseed_failed'
  | 'record_too_large'
  | 'conflicting_trade'
  | 'cursor_loop'
  | 'malformed_price'
  | 'order_not_found'
  | 'batch_not_found';

/**
 * `data_quality` — topic capture.quality, key condition_id (or the stream). A finding about what
 * the venue sent; `raw` holds the offending frame (at most its first 64 Ki characters). Made by
 * capture (src/capture/frames/record-builders.ts) and by the sync jobs (a cursor loop, an order a per-order read does not find; stream
 * `sync`); stored in
 * `data_quality`.
 */
export type DataQualityPayload = {
  problem: QualityProblem;
  detail: string;
  /** market, account, portfolio, or sync. */
  stream: string;
  token_id?: string | null;
  condition_id?: string | null;
  frame_seq?: number | null;
  raw_chars?: number;
  raw_truncated?: boolean;
  /** The sync jobs' cursor loop: the paged read and the cursor handed out twice. */
  endpoint?: string;
  cursor?: string;
  /** A per-order read answered 404 `order_not_found` for an order a list showed: the order. */
  order_id?: string;
  /** A batch hash the account's data named, that GET /trade/v1/batches/{hash} answered 404 `batch_not_found` for. */
  batch_hash?: string;
};

/** A `data_quality` payload at the bus boundary: one finding, or a `problems` list of them (each checked by the
 * loader); `sequence` or `frame_seq`. */
export const dataQualitySchema = streamData(
  loose({
    problems: list,
    problem: scalar,
    detail: scalar,
    stream: scalar,
    token_id: scalar,
    condition_id: scalar,
    sequence: integer,
    frame_seq: integer,
  }),
);
