-- Public trades are fills (interface §2.3, §6.2): a trade that meets several resting orders
-- arrives as several fills sharing its trade_id, each with its own fill_id, price and size.
-- trades keeps fill_id ('' when the venue sent none, and on rows stored before this migration);
-- a row's natural key is (trade_id, fill_id) (src/api/trade-key.ts).
-- The rollups count both fills (rows) and trades (distinct trade ids), and break open/close ties
-- by the fill too, so a candle does not depend on the order its fills were inserted in.
-- State rows written before this migration held one fill per trade (capture then dropped a
-- trade's later fills): their trade_count_sum stays their trade count, and fill_count_sum
-- defaults to it. New state rows count trades in trade_ids_state instead (trade_count_sum 0).

ALTER TABLE tapehouse.trades ADD COLUMN IF NOT EXISTS fill_id String DEFAULT '' AFTER trade_id;

ALTER TABLE tapehouse.candles_state ADD COLUMN IF NOT EXISTS fill_count_sum SimpleAggregateFunction(sum, UInt64) DEFAULT trade_count_sum AFTER trade_count_sum;

ALTER TABLE tapehouse.candles_state ADD COLUMN IF NOT EXISTS trade_ids_state AggregateFunction(uniqExact, String) AFTER fill_count_sum;

DROP VIEW IF EXISTS tapehouse.candles_mv;

-- A row without a trade id is a trade of its own (named by its bus position).
CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.candles_mv TO tapehouse.candles_state AS
SELECT
    interval_seconds,
    token_id,
    toDateTime64(intDiv(toUnixTimestamp(executed_at), interval_seconds) * interval_seconds, 3, 'UTC') AS bucket,
    argMinState(price_micro, (executed_at, sequence, if(fill_id = '', trade_id, concat(trade_id, '/', fill_id))))   AS open_state,
    argMaxState(price_micro, (executed_at, sequence, if(fill_id = '', trade_id, concat(trade_id, '/', fill_id))))   AS close_state,
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
    argMinMerge(open_state)     AS open_micro,
    toInt64(max(high_max))      AS high_micro,
    toInt64(min(low_min))       AS low_micro,
    argMaxMerge(close_state)    AS close_micro,
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

ALTER TABLE tapehouse.volume_daily_by_token_state ADD COLUMN IF NOT EXISTS fill_count_sum SimpleAggregateFunction(sum, UInt64) DEFAULT trade_count_sum AFTER trade_count_sum;

ALTER TABLE tapehouse.volume_daily_by_token_state ADD COLUMN IF NOT EXISTS trade_ids_state AggregateFunction(uniqExact, String) AFTER fill_count_sum;

DROP VIEW IF EXISTS tapehouse.volume_daily_by_token_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.volume_daily_by_token_mv TO tapehouse.volume_daily_by_token_state AS
SELECT
    toDate(executed_at)         AS day,
    token_id,
    max(condition_id)           AS condition_id,
    sum(shares_micro)           AS shares_sum,
    sum(notional_micro)         AS notional_sum,
    toUInt64(0)                 AS trade_count_sum,
    toUInt64(count())           AS fill_count_sum,
    uniqExactState(if(trade_id = '', concat('row:', _topic, ':', toString(_partition), ':', toString(_offset), ':', toString(_index)), trade_id)) AS trade_ids_state
FROM tapehouse.trades
GROUP BY day, token_id;

CREATE OR REPLACE VIEW tapehouse.volume_daily_by_token AS
SELECT
    v.day                   AS day,
    v.token_id              AS token_id,
    toString(max(v.condition_id)) AS condition_id,
    sum(v.shares_sum)       AS volume_shares_micro,
    sum(v.notional_sum)     AS volume_notional_micro,
    toUInt64(sum(v.trade_count_sum) + uniqExactMerge(v.trade_ids_state)) AS trade_count,
    toUInt64(sum(v.fill_count_sum)) AS fill_count
FROM tapehouse.volume_daily_by_token_state AS v
GROUP BY v.day, v.token_id;

CREATE OR REPLACE VIEW tapehouse.volume_daily_by_market AS
SELECT
    t.day                                                       AS day,
    if(o.condition_id != '', o.condition_id, t.condition_id)    AS condition_id,
    any(o.market_id)                                            AS market_id,
    any(m.question)                                             AS question,
    any(m.event_id)                                             AS event_id,
    sum(t.volume_shares_micro)                                  AS volume_shares_micro,
    sum(t.volume_notional_micro)                                AS volume_notional_micro,
    sum(t.trade_count)                                          AS trade_count,
    sum(t.fill_count)                                           AS fill_count
FROM tapehouse.volume_daily_by_token AS t
LEFT JOIN (SELECT token_id, market_id, condition_id FROM tapehouse.outcomes_latest) AS o ON o.token_id = t.token_id
LEFT JOIN (SELECT market_id, question, event_id FROM tapehouse.markets_latest) AS m ON m.market_id = o.market_id
GROUP BY day, condition_id;

CREATE OR REPLACE VIEW tapehouse.volume_daily_by_category AS
SELECT
    v.day                                   AS day,
    e.primary_category_slug                 AS category_slug,
    any(e.primary_category_label)           AS category_label,
    sum(v.volume_shares_micro)              AS volume_shares_micro,
    sum(v.volume_notional_micro)            AS volume_notional_micro,
    sum(v.trade_count)                      AS trade_count,
    sum(v.fill_count)                       AS fill_count,
    uniqExact(v.condition_id)               AS markets
FROM tapehouse.volume_daily_by_market AS v
LEFT JOIN (SELECT event_id, primary_category_slug, primary_category_label FROM tapehouse.events_latest) AS e ON e.event_id = v.event_id
GROUP BY day, category_slug;
