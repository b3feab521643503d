-- Latest views merge field by field (issue 22, point 5). A latest view used to serve the newest
-- row per key whole, so a row lacking a field erased the value another source had given: the
-- orders REST read (no cancel reason in the Order object) won over the account stream's
-- order_cancelled frame (which has it), and 0 of 70 cancelled orders showed a reason; an events
-- list read (no market ids) would likewise blank what the event's detail read gave.
--
-- Now the store behind each latest view of a table fed by more than one source keeps the newest
-- row per key AND source, and the view merges those rows field by field: each field comes from
-- the newest row that has it (a NULL, an empty string or an empty array is "lacking"; a number or
-- a flag is always a value), ordered by time, then source rank (at the same instant a REST read,
-- or an event's detail read, outranks a stream frame or a list read), then receive time and bus
-- offset. Within one source the newest row stands whole: a field its newest row lacks is gone.
-- The tables fed by one source (markets, outcomes, activities, pnl_settled, lp_incentives,
-- rebates) keep their views; positions_latest is a whole read by design (0102, 0110).

-- orders
DROP VIEW IF EXISTS tapehouse.orders_latest_mv;

CREATE TABLE IF NOT EXISTS tapehouse.orders_by_source AS tapehouse.orders
ENGINE = ReplacingMergeTree(observed_at)
ORDER BY (account, order_id, source)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Newest observation per order and source (kept by orders_by_source_mv; read it through orders_latest)';

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.orders_by_source_mv TO tapehouse.orders_by_source
AS SELECT * FROM tapehouse.orders;

-- Rows stored before: a second run (an interrupted migration) inserts the same rows, which the
-- ReplacingMergeTree keeps once.
INSERT INTO tapehouse.orders_by_source SELECT * FROM tapehouse.orders;

CREATE OR REPLACE VIEW tapehouse.orders_latest AS
SELECT
    account,
    order_id,
    argMaxIf(status, _v, status != '') AS status,
    argMax(is_terminal, _v) AS is_terminal,
    argMaxIf(type, _v, type != '') AS type,
    argMaxIf(side, _v, side != '') AS side,
    argMaxIf(token_id, _v, token_id != '') AS token_id,
    argMaxIf(condition_id, _v, condition_id != '') AS condition_id,
    argMaxIf(exchange, _v, exchange != '') AS exchange,
    argMaxIf(price_micro, _v, isNotNull(price_micro)) AS price_micro,
    argMaxIf(original_size_micro, _v, isNotNull(original_size_micro)) AS original_size_micro,
    argMax(size_matched_micro, _v) AS size_matched_micro,
    argMaxIf(collateral_amount_micro, _v, isNotNull(collateral_amount_micro)) AS collateral_amount_micro,
    argMaxIf(avg_fill_price_micro, _v, isNotNull(avg_fill_price_micro)) AS avg_fill_price_micro,
    argMaxIf(created_at, _v, isNotNull(created_at)) AS created_at,
    argMaxIf(expiration, _v, isNotNull(expiration)) AS expiration,
    argMaxIf(cancel_requested_at, _v, isNotNull(cancel_requested_at)) AS cancel_requested_at,
    argMaxIf(cancel_reason, _v, cancel_reason != '') AS cancel_reason,
    argMaxIf(failure_code, _v, failure_code != '') AS failure_code,
    argMaxIf(failure_title, _v, failure_title != '') AS failure_title,
    argMaxIf(failure_detail, _v, failure_detail != '') AS failure_detail,
    argMaxIf(failure_recovery_strategy, _v, failure_recovery_strategy != '') AS failure_recovery_strategy,
    argMax(source, _v) AS source,
    argMax(observed_at, _v) AS observed_at,
    argMax(_topic, _v) AS _topic,
    argMax(_partition, _v) AS _partition,
    argMax(_offset, _v) AS _offset,
    argMax(_index, _v) AS _index,
    argMax(_sync_job, _v) AS _sync_job,
    argMax(_sync_run, _v) AS _sync_run,
    argMax(_sync_page, _v) AS _sync_page,
    argMax(_received_at, _v) AS _received_at,
    argMax(_raw, _v) AS _raw
FROM (SELECT *, (observed_at, source LIKE 'rest:%', _received_at, _offset) AS _v FROM tapehouse.orders_by_source FINAL)
GROUP BY account, order_id;

DROP TABLE IF EXISTS tapehouse.orders_latest_store;

-- fill_observations
DROP VIEW IF EXISTS tapehouse.fill_observations_latest_mv;

CREATE TABLE IF NOT EXISTS tapehouse.fills_by_source AS tapehouse.fill_observations
ENGINE = ReplacingMergeTree(observed_at)
ORDER BY (account, fill_id, source)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Newest observation per fill and source (kept by fills_by_source_mv; read it through fills_latest)';

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.fills_by_source_mv TO tapehouse.fills_by_source
AS SELECT * FROM tapehouse.fill_observations;

-- Rows stored before: a second run (an interrupted migration) inserts the same rows, which the
-- ReplacingMergeTree keeps once.
INSERT INTO tapehouse.fills_by_source SELECT * FROM tapehouse.fill_observations;

CREATE OR REPLACE VIEW tapehouse.fills_latest AS
SELECT
    account,
    fill_id,
    argMaxIf(trade_id, _v, trade_id != '') AS trade_id,
    argMaxIf(order_id, _v, order_id != '') AS order_id,
    argMaxIf(token_id, _v, token_id != '') AS token_id,
    argMaxIf(condition_id, _v, condition_id != '') AS condition_id,
    argMaxIf(status, _v, status != '') AS status,
    argMaxIf(exchange, _v, exchange != '') AS exchange,
    argMaxIf(side, _v, side != '') AS side,
    argMaxIf(role, _v, role != '') AS role,
    argMax(price_micro, _v) AS price_micro,
    argMax(shares_micro, _v) AS shares_micro,
    argMax(fee_micro, _v) AS fee_micro,
    argMax(notional_micro, _v) AS notional_micro,
    argMax(executed_at, _v) AS executed_at,
    argMaxIf(transaction_hash, _v, transaction_hash != '') AS transaction_hash,
    argMax(source, _v) AS source,
    argMax(observed_at, _v) AS observed_at,
    argMax(_topic, _v) AS _topic,
    argMax(_partition, _v) AS _partition,
    argMax(_offset, _v) AS _offset,
    argMax(_index, _v) AS _index,
    argMax(_sync_job, _v) AS _sync_job,
    argMax(_sync_run, _v) AS _sync_run,
    argMax(_sync_page, _v) AS _sync_page,
    argMax(_received_at, _v) AS _received_at,
    argMax(_raw, _v) AS _raw
FROM (SELECT *, notional_micro, (observed_at, source LIKE 'rest:%', _received_at, _offset) AS _v FROM tapehouse.fills_by_source FINAL)
GROUP BY account, fill_id;

CREATE OR REPLACE VIEW tapehouse.fills AS
SELECT * FROM tapehouse.fills_latest;

DROP TABLE IF EXISTS tapehouse.fills_latest_store;

-- portfolio_summaries
DROP VIEW IF EXISTS tapehouse.portfolio_summaries_latest_mv;

CREATE TABLE IF NOT EXISTS tapehouse.portfolio_summaries_by_source AS tapehouse.portfolio_summaries
ENGINE = ReplacingMergeTree(as_of)
ORDER BY (account, exchange, source)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Newest summary per account, exchange and source (read it through portfolio_summaries_latest)';

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.portfolio_summaries_by_source_mv TO tapehouse.portfolio_summaries_by_source
AS SELECT * FROM tapehouse.portfolio_summaries;

-- Rows stored before: a second run (an interrupted migration) inserts the same rows, which the
-- ReplacingMergeTree keeps once.
INSERT INTO tapehouse.portfolio_summaries_by_source SELECT * FROM tapehouse.portfolio_summaries;

CREATE OR REPLACE VIEW tapehouse.portfolio_summaries_latest AS
SELECT
    account,
    exchange,
    argMax(as_of, _v) AS as_of,
    argMaxIf(accounting_status, _v, accounting_status != '') AS accounting_status,
    argMax(cash_balance_micro, _v) AS cash_balance_micro,
    argMax(free_cash_micro, _v) AS free_cash_micro,
    argMax(open_cost_basis_micro, _v) AS open_cost_basis_micro,
    argMax(open_unrealized_pnl_micro, _v) AS open_unrealized_pnl_micro,
    argMax(portfolio_value_micro, _v) AS portfolio_value_micro,
    argMax(positions_value_micro, _v) AS positions_value_micro,
    argMax(source, _v) AS source,
    argMax(_topic, _v) AS _topic,
    argMax(_partition, _v) AS _partition,
    argMax(_offset, _v) AS _offset,
    argMax(_index, _v) AS _index,
    argMax(_sync_job, _v) AS _sync_job,
    argMax(_sync_run, _v) AS _sync_run,
    argMax(_sync_page, _v) AS _sync_page,
    argMax(_received_at, _v) AS _received_at,
    argMax(_raw, _v) AS _raw
FROM (SELECT *, (as_of, source LIKE 'rest:%', _received_at, _offset) AS _v FROM tapehouse.portfolio_summaries_by_source FINAL)
GROUP BY account, exchange;

DROP TABLE IF EXISTS tapehouse.portfolio_summaries_latest_store;

-- events
DROP VIEW IF EXISTS tapehouse.events_latest_mv;

CREATE TABLE IF NOT EXISTS tapehouse.events_by_source AS tapehouse.events
ENGINE = ReplacingMergeTree(observed_at)
ORDER BY (event_id, is_detail)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Newest list and newest detail observation per event (read it through events_latest)';

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.events_by_source_mv TO tapehouse.events_by_source
AS SELECT * FROM tapehouse.events;

-- Rows stored before: a second run (an interrupted migration) inserts the same rows, which the
-- ReplacingMergeTree keeps once.
INSERT INTO tapehouse.events_by_source SELECT * FROM tapehouse.events;

CREATE OR REPLACE VIEW tapehouse.events_latest AS
SELECT
    event_id,
    argMaxIf(slug, _v, slug != '') AS slug,
    argMaxIf(title, _v, title != '') AS title,
    argMaxIf(event_type, _v, event_type != '') AS event_type,
    argMaxIf(state, _v, state != '') AS state,
    argMaxIf(resolution_status, _v, resolution_status != '') AS resolution_status,
    argMax(is_accepting_orders, _v) AS is_accepting_orders,
    argMax(is_live, _v) AS is_live,
    argMax(is_group_root, _v) AS is_group_root,
    argMaxIf(start_time, _v, isNotNull(start_time)) AS start_time,
    argMaxIf(end_time, _v, isNotNull(end_time)) AS end_time,
    argMax(volume_micro, _v) AS volume_micro,
    argMaxIf(main_market_id, _v, main_market_id != '') AS main_market_id,
    argMaxIf(neg_risk_id, _v, neg_risk_id != '') AS neg_risk_id,
    argMaxIf(primary_category_slug, _v, primary_category_slug != '') AS primary_category_slug,
    argMaxIf(primary_category_label, _v, primary_category_label != '') AS primary_category_label,
    argMaxIf(category_slugs, _v, notEmpty(category_slugs)) AS category_slugs,
    argMaxIf(market_count, _v, isNotNull(market_count)) AS market_count,
    argMaxIf(market_ids, _v, notEmpty(market_ids)) AS market_ids,
    argMaxIf(disputed_market_count, _v, isNotNull(disputed_market_count)) AS disputed_market_count,
    argMaxIf(resolved_market_count, _v, isNotNull(resolved_market_count)) AS resolved_market_count,
    argMaxIf(sport_group, _v, sport_group != '') AS sport_group,
    argMaxIf(game_lifecycle, _v, game_lifecycle != '') AS game_lifecycle,
    argMaxIf(live_label, _v, live_label != '') AS live_label,
    argMax(is_detail, _v) AS is_detail,
    argMax(observed_at, _v) AS observed_at,
    argMax(_topic, _v) AS _topic,
    argMax(_partition, _v) AS _partition,
    argMax(_offset, _v) AS _offset,
    argMax(_index, _v) AS _index,
    argMax(_sync_job, _v) AS _sync_job,
    argMax(_sync_run, _v) AS _sync_run,
    argMax(_sync_page, _v) AS _sync_page,
    argMax(_received_at, _v) AS _received_at,
    argMax(_raw, _v) AS _raw
FROM (SELECT *, (observed_at, is_detail, _received_at, _offset) AS _v FROM tapehouse.events_by_source FINAL)
GROUP BY event_id;

DROP TABLE IF EXISTS tapehouse.events_latest_store;
