-- The venue's order, kept (issue 35). Every row born from a stream frame keeps where its frame
-- stood: frame_conn, capture's number of the connection it came on (unique in the capture process
-- and growing with the connection's start time: its start in µs since the epoch, raised past the
-- previous number), and frame_seq, the frame envelope's `seq` (the venue numbers the frames of a
-- connection). Both are 0 where not known: REST reads, and rows stored before this migration.
-- `sequence` keeps its meaning (the data's own sequence; capture's book sequence on book tables).
--
-- Firsts and lasts now break a tie of time by (frame_conn, frame_seq) before anything else
-- (sql/README.md, "Order within one time"): candles' open and close, the lifecycle's steps and
-- last kind, and the minute top of book. Trades in one millisecond were ordered by trade id before.
-- The aggregate states keep their old form too (ordered by time, sequence, trade id): a bucket
-- whose every row is in the new states (ordered_count_sum covers them all) reads the new ones;
-- a bucket that holds rows aggregated before this migration reads the old ones, as it did.

ALTER TABLE tapehouse.trades ADD COLUMN IF NOT EXISTS frame_conn UInt64 DEFAULT 0 CODEC(Delta(8), ZSTD(1)) AFTER sequence;
ALTER TABLE tapehouse.trades ADD COLUMN IF NOT EXISTS frame_seq UInt64 DEFAULT 0 CODEC(Delta(8), ZSTD(1)) AFTER frame_conn;

ALTER TABLE tapehouse.quotes ADD COLUMN IF NOT EXISTS frame_conn UInt64 DEFAULT 0 CODEC(Delta(8), ZSTD(1)) AFTER sequence;
ALTER TABLE tapehouse.quotes ADD COLUMN IF NOT EXISTS frame_seq UInt64 DEFAULT 0 CODEC(Delta(8), ZSTD(1)) AFTER frame_conn;

ALTER TABLE tapehouse.market_status ADD COLUMN IF NOT EXISTS frame_conn UInt64 DEFAULT 0 AFTER sequence;
ALTER TABLE tapehouse.market_status ADD COLUMN IF NOT EXISTS frame_seq UInt64 DEFAULT 0 AFTER frame_conn;

ALTER TABLE tapehouse.book_changes ADD COLUMN IF NOT EXISTS frame_conn UInt64 DEFAULT 0 CODEC(Delta(8), ZSTD(1)) AFTER venue_sequence;
ALTER TABLE tapehouse.book_changes ADD COLUMN IF NOT EXISTS frame_seq UInt64 DEFAULT 0 CODEC(Delta(8), ZSTD(1)) AFTER frame_conn;

ALTER TABLE tapehouse.book_snapshots ADD COLUMN IF NOT EXISTS frame_conn UInt64 DEFAULT 0 AFTER venue_sequence;
ALTER TABLE tapehouse.book_snapshots ADD COLUMN IF NOT EXISTS frame_seq UInt64 DEFAULT 0 AFTER frame_conn;

ALTER TABLE tapehouse.account_events ADD COLUMN IF NOT EXISTS frame_conn UInt64 DEFAULT 0;
ALTER TABLE tapehouse.account_events ADD COLUMN IF NOT EXISTS frame_seq UInt64 DEFAULT 0 AFTER frame_conn;

-- Candles: open and close by (executed_at, frame_conn, frame_seq, sequence, trade id / fill id).
ALTER TABLE tapehouse.candles_state ADD COLUMN IF NOT EXISTS ordered_count_sum SimpleAggregateFunction(sum, UInt64) DEFAULT 0;
ALTER TABLE tapehouse.candles_state ADD COLUMN IF NOT EXISTS open_ordered_state AggregateFunction(argMin, Int64, Tuple(DateTime64(3, 'UTC'), UInt64, UInt64, UInt64, String));
ALTER TABLE tapehouse.candles_state ADD COLUMN IF NOT EXISTS close_ordered_state AggregateFunction(argMax, Int64, Tuple(DateTime64(3, 'UTC'), UInt64, UInt64, UInt64, String));

DROP VIEW IF EXISTS tapehouse.candles_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.candles_mv TO tapehouse.candles_state AS
SELECT
    interval_seconds,
    token_id,
    toDateTime64(intDiv(toUnixTimestamp(executed_at), interval_seconds) * interval_seconds, 3, 'UTC') AS bucket,
    argMinState(price_micro, (executed_at, sequence, if(fill_id = '', trade_id, concat(trade_id, '/', fill_id))))   AS open_state,
    argMaxState(price_micro, (executed_at, sequence, if(fill_id = '', trade_id, concat(trade_id, '/', fill_id))))   AS close_state,
    toUInt64(count())                                               AS ordered_count_sum,
    argMinState(price_micro, (executed_at, frame_conn, frame_seq, sequence, if(fill_id = '', trade_id, concat(trade_id, '/', fill_id)))) AS open_ordered_state,
    argMaxState(price_micro, (executed_at, frame_conn, frame_seq, sequence, if(fill_id = '', trade_id, concat(trade_id, '/', fill_id)))) AS close_ordered_state,
    max(price_micro)                                                AS high_max,
    min(price_micro)                                                AS low_min,
    sum(shares_micro)                                               AS shares_sum,
    sum(notional_micro)                                             AS notional_sum,
    sumIf(shares_micro, side = 'BUY')                               AS buy_shares_sum,
    sumIf(shares_micro, side = 'SELL')                              AS sell_shares_sum,
    toUInt64(0)                                                     AS trade_count_sum,
    toUInt64(count())                                               AS fill_count_sum,
    uniqExactState(if(trade_id = '', concat('row:', _topic, ':', toString(_partition), ':', toString(_offset), ':', toString(_index)), trade_id)) AS trade_ids_state,
    min(executed_at)                                                AS first_trade_at_min,
    max(executed_at)                                                AS last_trade_at_max
FROM tapehouse.trades
ARRAY JOIN [60, 3600] AS interval_seconds
GROUP BY interval_seconds, token_id, bucket;

CREATE OR REPLACE VIEW tapehouse.candles AS
SELECT
    interval_seconds,
    token_id,
    bucket,
    if(sum(ordered_count_sum) = sum(fill_count_sum), argMinMerge(open_ordered_state), argMinMerge(open_state)) AS open_micro,
    toInt64(max(high_max))      AS high_micro,
    toInt64(min(low_min))       AS low_micro,
    if(sum(ordered_count_sum) = sum(fill_count_sum), argMaxMerge(close_ordered_state), argMaxMerge(close_state)) AS close_micro,
    sum(shares_sum)             AS volume_shares_micro,
    sum(notional_sum)           AS volume_notional_micro,
    sum(buy_shares_sum)         AS buy_shares_micro,
    sum(sell_shares_sum)        AS sell_shares_micro,
    toUInt64(sum(trade_count_sum) + uniqExactMerge(trade_ids_state)) AS trade_count,
    toUInt64(sum(fill_count_sum)) AS fill_count,
    if(volume_shares_micro = 0, 0, toInt64(intDiv(toInt128(volume_notional_micro) * 1000000, volume_shares_micro))) AS vwap_micro,
    toDateTime64(min(first_trade_at_min), 3, 'UTC') AS first_trade_at,
    toDateTime64(max(last_trade_at_max), 3, 'UTC')  AS last_trade_at
FROM tapehouse.candles_state
GROUP BY interval_seconds, token_id, bucket;

CREATE OR REPLACE VIEW tapehouse.candles_1m AS
SELECT * EXCEPT interval_seconds FROM tapehouse.candles WHERE interval_seconds = 60;

CREATE OR REPLACE VIEW tapehouse.candles_1h AS
SELECT * EXCEPT interval_seconds FROM tapehouse.candles WHERE interval_seconds = 3600;

-- The lifecycle: steps and the last kind by (status_at, frame_conn, frame_seq, sequence, bus position).
CREATE OR REPLACE VIEW tapehouse.market_lifecycle AS
SELECT
    condition_id,
    status_at,
    kind,
    row_number() OVER w                                             AS step,
    lagInFrame(kind, 1, '') OVER w                                  AS previous_kind,
    lagInFrame(status_at, 1, status_at) OVER w                      AS previous_status_at,
    dateDiff('millisecond', previous_status_at, status_at)          AS ms_since_previous,
    multiIf(kind IN ('market_halted', 'market_resolved', 'payouts_resolved'), 0,
            kind = 'market_resumed', 1,
            NULL)                                                   AS accepting_orders_after,
    CAST(kind IN ('market_resolved', 'payouts_resolved') AS Bool)   AS is_final,
    CAST(kind IN ('outcome_proposed', 'payouts_proposed') AS Bool)  AS is_proposal,
    market_id,
    event_id,
    reason,
    winning_token_id,
    payout_token_ids,
    payouts_micro,
    new_market_id,
    new_condition_id,
    new_token_ids,
    _received_at
FROM tapehouse.market_status
WHERE condition_id != ''
WINDOW w AS (PARTITION BY condition_id ORDER BY status_at, frame_conn, frame_seq, sequence, _offset, _index
             ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);

CREATE OR REPLACE VIEW tapehouse.market_lifecycle_summary AS
SELECT
    s.condition_id                                                              AS condition_id,
    min(s.status_at)                                                            AS first_status_at,
    max(s.status_at)                                                            AS last_status_at,
    argMax(s.kind, (s.status_at, s.frame_conn, s.frame_seq, s.sequence, s._offset, s._index)) AS last_kind,
    countIf(s.kind = 'market_halted')                                           AS halts,
    countIf(s.kind = 'market_resumed')                                          AS resumes,
    countIf(s.kind IN ('outcome_proposed', 'payouts_proposed'))                 AS proposals,
    minIf(s.status_at, s.kind IN ('market_resolved', 'payouts_resolved'))       AS resolved_at,
    CAST(countIf(s.kind IN ('market_resolved', 'payouts_resolved')) > 0 AS Bool) AS is_resolved,
    argMaxIf(s.winning_token_id, (s.status_at, s.frame_conn, s.frame_seq, s.sequence), s.kind = 'market_resolved') AS winning_token_id
FROM tapehouse.market_status AS s
WHERE s.condition_id != ''
GROUP BY s.condition_id;

-- The minute top of book: open and close quotes by (quoted_at, frame_conn, frame_seq, sequence).
ALTER TABLE tapehouse.top_of_book_1m_state ADD COLUMN IF NOT EXISTS ordered_count_sum SimpleAggregateFunction(sum, UInt64) DEFAULT 0;
ALTER TABLE tapehouse.top_of_book_1m_state ADD COLUMN IF NOT EXISTS bid_open_ordered_state AggregateFunction(argMin, Nullable(Int64), Tuple(DateTime64(3, 'UTC'), UInt64, UInt64, UInt64));
ALTER TABLE tapehouse.top_of_book_1m_state ADD COLUMN IF NOT EXISTS bid_close_ordered_state AggregateFunction(argMax, Nullable(Int64), Tuple(DateTime64(3, 'UTC'), UInt64, UInt64, UInt64));
ALTER TABLE tapehouse.top_of_book_1m_state ADD COLUMN IF NOT EXISTS ask_open_ordered_state AggregateFunction(argMin, Nullable(Int64), Tuple(DateTime64(3, 'UTC'), UInt64, UInt64, UInt64));
ALTER TABLE tapehouse.top_of_book_1m_state ADD COLUMN IF NOT EXISTS ask_close_ordered_state AggregateFunction(argMax, Nullable(Int64), Tuple(DateTime64(3, 'UTC'), UInt64, UInt64, UInt64));

DROP VIEW IF EXISTS tapehouse.top_of_book_1m_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.top_of_book_1m_mv TO tapehouse.top_of_book_1m_state AS
SELECT
    token_id,
    toDateTime64(toStartOfMinute(quoted_at), 3, 'UTC')                  AS bucket,
    argMinState(best_bid_micro, (quoted_at, sequence))                  AS bid_open_state,
    argMaxState(best_bid_micro, (quoted_at, sequence))                  AS bid_close_state,
    argMinState(best_ask_micro, (quoted_at, sequence))                  AS ask_open_state,
    argMaxState(best_ask_micro, (quoted_at, sequence))                  AS ask_close_state,
    toUInt64(count())                                                   AS ordered_count_sum,
    argMinState(best_bid_micro, (quoted_at, frame_conn, frame_seq, sequence)) AS bid_open_ordered_state,
    argMaxState(best_bid_micro, (quoted_at, frame_conn, frame_seq, sequence)) AS bid_close_ordered_state,
    argMinState(best_ask_micro, (quoted_at, frame_conn, frame_seq, sequence)) AS ask_open_ordered_state,
    argMaxState(best_ask_micro, (quoted_at, frame_conn, frame_seq, sequence)) AS ask_close_ordered_state,
    maxState(best_bid_micro)                                            AS bid_high_state,
    minState(best_ask_micro)                                            AS ask_low_state,
    minState(best_ask_micro - best_bid_micro)                           AS spread_min_state,
    maxState(best_ask_micro - best_bid_micro)                           AS spread_max_state,
    toInt64(sum(ifNull(best_ask_micro - best_bid_micro, 0)))            AS spread_sum,
    toUInt64(countIf(best_bid_micro IS NOT NULL AND best_ask_micro IS NOT NULL)) AS two_sided_count,
    toUInt64(count())                                                   AS quote_count
FROM tapehouse.quotes
GROUP BY token_id, bucket;

CREATE OR REPLACE VIEW tapehouse.top_of_book_1m AS
SELECT
    token_id,
    bucket,
    if(sum(ordered_count_sum) = sum(quote_count), argMinMerge(bid_open_ordered_state), argMinMerge(bid_open_state))   AS bid_open_micro,
    if(sum(ordered_count_sum) = sum(quote_count), argMaxMerge(bid_close_ordered_state), argMaxMerge(bid_close_state)) AS bid_close_micro,
    if(sum(ordered_count_sum) = sum(quote_count), argMinMerge(ask_open_ordered_state), argMinMerge(ask_open_state))   AS ask_open_micro,
    if(sum(ordered_count_sum) = sum(quote_count), argMaxMerge(ask_close_ordered_state), argMaxMerge(ask_close_state)) AS ask_close_micro,
    maxMerge(bid_high_state)        AS bid_high_micro,
    minMerge(ask_low_state)         AS ask_low_micro,
    minMerge(spread_min_state)      AS spread_min_micro,
    maxMerge(spread_max_state)      AS spread_max_micro,
    if(sum(two_sided_count) = 0, NULL, intDiv(sum(spread_sum), sum(two_sided_count))) AS spread_avg_micro,
    ask_close_micro - bid_close_micro AS spread_close_micro,
    sum(two_sided_count)            AS two_sided_quotes,
    sum(quote_count)                AS quotes
FROM tapehouse.top_of_book_1m_state
GROUP BY token_id, bucket;

-- Stored stream rows keep their frame's raw text, envelope and all: `tapehouse rederive` reads the
-- frame's `seq` from it again (frame_seq). The connection's number is in no frame: such rows keep
-- frame_conn 0. Rollup states already aggregated are not rebuilt by it (sql/README.md).
INSERT INTO tapehouse.rederive_requests (table_name, requested_by)
VALUES ('trades', '0180_frame_order'), ('quotes', '0180_frame_order'), ('market_status', '0180_frame_order'), ('account_events', '0180_frame_order');
