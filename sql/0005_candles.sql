-- OHLCV candles per token from public trades, kept by one materialized view as aggregate states
-- for every interval at once (ARRAY JOIN over the interval lengths; add one by a new migration).
-- Open and close are argMin/argMax over (executed_at, sequence, trade_id), so a candle does not
-- depend on the order in which trades were inserted; states merge across inserts and parts.
-- Read finished candles from candles (all intervals), candles_1m or candles_1h.
-- The state table deduplicates too: a trades insert dropped as a duplicate adds nothing here.
-- (The view casts simple-aggregate columns back to plain types.)

CREATE TABLE IF NOT EXISTS tapehouse.candles_state
(
    interval_seconds    UInt32,
    token_id            String,
    bucket              DateTime64(3, 'UTC'),
    open_state          AggregateFunction(argMin, Int64, Tuple(DateTime64(3, 'UTC'), UInt64, String)),
    close_state         AggregateFunction(argMax, Int64, Tuple(DateTime64(3, 'UTC'), UInt64, String)),
    high_max            SimpleAggregateFunction(max, Int64),
    low_min             SimpleAggregateFunction(min, Int64),
    shares_sum          SimpleAggregateFunction(sum, Int64),
    notional_sum        SimpleAggregateFunction(sum, Int64),
    buy_shares_sum      SimpleAggregateFunction(sum, Int64),
    sell_shares_sum     SimpleAggregateFunction(sum, Int64),
    trade_count_sum     SimpleAggregateFunction(sum, UInt64),
    first_trade_at_min  SimpleAggregateFunction(min, DateTime64(3, 'UTC')),
    last_trade_at_max   SimpleAggregateFunction(max, DateTime64(3, 'UTC'))
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(bucket)
ORDER BY (interval_seconds, token_id, bucket)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Aggregate states of candles, one row per interval, token and bucket (read candles, candles_1m, candles_1h)';

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.candles_mv TO tapehouse.candles_state AS
SELECT
    interval_seconds,
    token_id,
    toDateTime64(intDiv(toUnixTimestamp(executed_at), interval_seconds) * interval_seconds, 3, 'UTC') AS bucket,
    argMinState(price_micro, (executed_at, sequence, trade_id))     AS open_state,
    argMaxState(price_micro, (executed_at, sequence, trade_id))     AS close_state,
    max(price_micro)                                                AS high_max,
    min(price_micro)                                                AS low_min,
    sum(shares_micro)                                               AS shares_sum,
    sum(notional_micro)                                             AS notional_sum,
    sumIf(shares_micro, side = 'BUY')                               AS buy_shares_sum,
    sumIf(shares_micro, side = 'SELL')                              AS sell_shares_sum,
    toUInt64(count())                                               AS trade_count_sum,
    min(executed_at)                                                AS first_trade_at_min,
    max(executed_at)                                                AS last_trade_at_max
FROM tapehouse.trades
ARRAY JOIN [60, 3600] AS interval_seconds
GROUP BY interval_seconds, token_id, bucket;

CREATE VIEW IF NOT EXISTS tapehouse.candles AS
SELECT
    interval_seconds,
    token_id,
    bucket,
    argMinMerge(open_state)     AS open_micro,
    toInt64(max(high_max))      AS high_micro,
    toInt64(min(low_min))       AS low_micro,
    argMaxMerge(close_state)    AS close_micro,
    sum(shares_sum)             AS volume_shares_micro,
    sum(notional_sum)           AS volume_notional_micro,
    sum(buy_shares_sum)         AS buy_shares_micro,
    sum(sell_shares_sum)        AS sell_shares_micro,
    sum(trade_count_sum)        AS trade_count,
    if(volume_shares_micro = 0, 0, toInt64(intDiv(toInt128(volume_notional_micro) * 1000000, volume_shares_micro))) AS vwap_micro,
    toDateTime64(min(first_trade_at_min), 3, 'UTC') AS first_trade_at,
    toDateTime64(max(last_trade_at_max), 3, 'UTC')  AS last_trade_at
FROM tapehouse.candles_state
GROUP BY interval_seconds, token_id, bucket;

CREATE VIEW IF NOT EXISTS tapehouse.candles_1m AS
SELECT * EXCEPT interval_seconds FROM tapehouse.candles WHERE interval_seconds = 60;

CREATE VIEW IF NOT EXISTS tapehouse.candles_1h AS
SELECT * EXCEPT interval_seconds FROM tapehouse.candles WHERE interval_seconds = 3600;
