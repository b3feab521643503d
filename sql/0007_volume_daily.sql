-- Traded volume per day: kept per token by a materialized view over trades, presented per market
-- and per category by views that join the latest catalogue at query time, so a catalogue that
-- arrives after the trades (or changes a category later) is reflected without reloading.

CREATE TABLE IF NOT EXISTS tapehouse.volume_daily_by_token_state
(
    day                 Date,
    token_id            String,
    condition_id        SimpleAggregateFunction(max, String),
    shares_sum          SimpleAggregateFunction(sum, Int64),
    notional_sum        SimpleAggregateFunction(sum, Int64),
    trade_count_sum     SimpleAggregateFunction(sum, UInt64)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (day, token_id)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Daily traded volume per token (read volume_daily_by_token, _by_market, _by_category)';

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.volume_daily_by_token_mv TO tapehouse.volume_daily_by_token_state AS
SELECT
    toDate(executed_at)         AS day,
    token_id,
    max(condition_id)           AS condition_id,
    sum(shares_micro)           AS shares_sum,
    sum(notional_micro)         AS notional_sum,
    toUInt64(count())           AS trade_count_sum
FROM tapehouse.trades
GROUP BY day, token_id;

CREATE VIEW IF NOT EXISTS tapehouse.volume_daily_by_token AS
SELECT
    v.day                   AS day,
    v.token_id              AS token_id,
    toString(max(v.condition_id)) AS condition_id,
    sum(v.shares_sum)       AS volume_shares_micro,
    sum(v.notional_sum)     AS volume_notional_micro,
    sum(v.trade_count_sum)  AS trade_count
FROM tapehouse.volume_daily_by_token_state AS v
GROUP BY v.day, v.token_id;

-- Market of a token: the catalogue's outcome when known, else the condition the trades carried.
CREATE VIEW IF NOT EXISTS tapehouse.volume_daily_by_market AS
SELECT
    t.day                                                       AS day,
    if(o.condition_id != '', o.condition_id, t.condition_id)    AS condition_id,
    any(o.market_id)                                            AS market_id,
    any(m.question)                                             AS question,
    any(m.event_id)                                             AS event_id,
    sum(t.volume_shares_micro)                                  AS volume_shares_micro,
    sum(t.volume_notional_micro)                                AS volume_notional_micro,
    sum(t.trade_count)                                          AS trade_count
FROM tapehouse.volume_daily_by_token AS t
LEFT JOIN (SELECT token_id, market_id, condition_id FROM tapehouse.outcomes_latest) AS o ON o.token_id = t.token_id
LEFT JOIN (SELECT market_id, question, event_id FROM tapehouse.markets_latest) AS m ON m.market_id = o.market_id
GROUP BY day, condition_id;

-- Category of a market: its event's primary category ('' when the catalogue does not know it).
CREATE VIEW IF NOT EXISTS tapehouse.volume_daily_by_category AS
SELECT
    v.day                                   AS day,
    e.primary_category_slug                 AS category_slug,
    any(e.primary_category_label)           AS category_label,
    sum(v.volume_shares_micro)              AS volume_shares_micro,
    sum(v.volume_notional_micro)            AS volume_notional_micro,
    sum(v.trade_count)                      AS trade_count,
    uniqExact(v.condition_id)               AS markets
FROM tapehouse.volume_daily_by_market AS v
LEFT JOIN (SELECT event_id, primary_category_slug, primary_category_label FROM tapehouse.events_latest) AS e ON e.event_id = v.event_id
GROUP BY day, category_slug;
