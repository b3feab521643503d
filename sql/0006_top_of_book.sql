-- Spread and top of book per token and minute, from quotes, kept as aggregate states.
-- Opening and closing quotes are argMin/argMax over (quoted_at, sequence): independent of insert
-- order. A side that is empty (NULL) is skipped by the aggregates; spread statistics count only
-- two-sided quotes. The average spread is an integer mean of those quotes' spreads.

CREATE TABLE IF NOT EXISTS tapehouse.top_of_book_1m_state
(
    token_id            String,
    bucket              DateTime64(3, 'UTC'),
    bid_open_state      AggregateFunction(argMin, Nullable(Int64), Tuple(DateTime64(3, 'UTC'), UInt64)),
    bid_close_state     AggregateFunction(argMax, Nullable(Int64), Tuple(DateTime64(3, 'UTC'), UInt64)),
    ask_open_state      AggregateFunction(argMin, Nullable(Int64), Tuple(DateTime64(3, 'UTC'), UInt64)),
    ask_close_state     AggregateFunction(argMax, Nullable(Int64), Tuple(DateTime64(3, 'UTC'), UInt64)),
    bid_high_state      AggregateFunction(max, Nullable(Int64)),
    ask_low_state       AggregateFunction(min, Nullable(Int64)),
    spread_min_state    AggregateFunction(min, Nullable(Int64)),
    spread_max_state    AggregateFunction(max, Nullable(Int64)),
    spread_sum          SimpleAggregateFunction(sum, Int64),
    two_sided_count     SimpleAggregateFunction(sum, UInt64),
    quote_count         SimpleAggregateFunction(sum, UInt64)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(bucket)
ORDER BY (token_id, bucket)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Aggregate states of per-minute top of book (read top_of_book_1m)';

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.top_of_book_1m_mv TO tapehouse.top_of_book_1m_state AS
SELECT
    token_id,
    toDateTime64(toStartOfMinute(quoted_at), 3, 'UTC')                  AS bucket,
    argMinState(best_bid_micro, (quoted_at, sequence))                  AS bid_open_state,
    argMaxState(best_bid_micro, (quoted_at, sequence))                  AS bid_close_state,
    argMinState(best_ask_micro, (quoted_at, sequence))                  AS ask_open_state,
    argMaxState(best_ask_micro, (quoted_at, sequence))                  AS ask_close_state,
    maxState(best_bid_micro)                                            AS bid_high_state,
    minState(best_ask_micro)                                            AS ask_low_state,
    minState(best_ask_micro - best_bid_micro)                           AS spread_min_state,
    maxState(best_ask_micro - best_bid_micro)                           AS spread_max_state,
    toInt64(sum(ifNull(best_ask_micro - best_bid_micro, 0)))            AS spread_sum,
    toUInt64(countIf(best_bid_micro IS NOT NULL AND best_ask_micro IS NOT NULL)) AS two_sided_count,
    toUInt64(count())                                                   AS quote_count
FROM tapehouse.quotes
GROUP BY token_id, bucket;

CREATE VIEW IF NOT EXISTS tapehouse.top_of_book_1m AS
SELECT
    token_id,
    bucket,
    argMinMerge(bid_open_state)     AS bid_open_micro,
    argMaxMerge(bid_close_state)    AS bid_close_micro,
    argMinMerge(ask_open_state)     AS ask_open_micro,
    argMaxMerge(ask_close_state)    AS ask_close_micro,
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
