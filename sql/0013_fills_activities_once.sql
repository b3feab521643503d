-- A user querying fills (or activities) sees each fill (activity) once, in its newest state, even when
-- a sync job re-published it across a crash or its settlement status changed since. The history of
-- observed states moves to fill_observations and activity_observations (what fills and activities
-- were until now), and fills and activities become views over the latest stores, read with FINAL so
-- they are exact at query time, not only after background merges.
--
-- No loader wrote to the old tables before this migration; rows anyone put there by hand are moved.
-- Every statement can run again (a migration interrupted midway completes on the next run): the
-- copy reads the old tables only while they are still tables.

CREATE TABLE IF NOT EXISTS tapehouse.fill_observations
(
    account             LowCardinality(String),
    fill_id             String,
    trade_id            String                      DEFAULT '',
    order_id            String                      DEFAULT '',
    token_id            String,
    condition_id        String                      DEFAULT '',
    status              LowCardinality(String)      DEFAULT '',
    exchange            LowCardinality(String)      DEFAULT '',
    side                LowCardinality(String),
    role                LowCardinality(String)      DEFAULT '',
    price_micro         Int64,
    shares_micro        Int64,
    fee_micro           Int64                       DEFAULT 0,
    notional_micro      Int64                       MATERIALIZED toInt64(intDiv(toInt128(price_micro) * shares_micro, 1000000)),
    executed_at         DateTime64(3, 'UTC'),
    transaction_hash    String                      DEFAULT '',
    source              LowCardinality(String),
    observed_at         DateTime64(3, 'UTC'),
    _topic              LowCardinality(String),
    _partition          UInt32,
    _offset             UInt64,
    _index              UInt32                      DEFAULT 0,
    _sync_job           LowCardinality(String)      DEFAULT '',
    _sync_run           String                      DEFAULT '',
    _sync_page          UInt32                      DEFAULT 0,
    _received_at        DateTime64(6, 'UTC'),
    _raw                String                      DEFAULT '' CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(executed_at)
ORDER BY (account, token_id, executed_at, fill_id, observed_at)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'The account''s fills, one row per observed state of each fill (REST reads and account-stream frames)';

CREATE TABLE IF NOT EXISTS tapehouse.activity_observations
(
    account                     LowCardinality(String),
    activity_id                 String,
    type                        LowCardinality(String)  DEFAULT '',
    order_id                    String                  DEFAULT '',
    condition_id                String                  DEFAULT '',
    token_id                    String                  DEFAULT '',
    exchange                    LowCardinality(String)  DEFAULT '',
    side                        LowCardinality(String)  DEFAULT '',
    status                      LowCardinality(String)  DEFAULT '',
    fill_status                 LowCardinality(String)  DEFAULT '',
    filled_amount_micro         Int64                   DEFAULT 0,
    filled_shares_micro         Int64                   DEFAULT 0,
    average_fill_price_micro    Nullable(Int64),
    fees_micro                  Int64                   DEFAULT 0,
    created_at                  DateTime64(3, 'UTC'),
    observed_at                 DateTime64(3, 'UTC'),
    _topic                      LowCardinality(String),
    _partition                  UInt32,
    _offset                     UInt64,
    _index                      UInt32                  DEFAULT 0,
    _sync_job                   LowCardinality(String)  DEFAULT '',
    _sync_run                   String                  DEFAULT '',
    _sync_page                  UInt32                  DEFAULT 0,
    _received_at                DateTime64(6, 'UTC'),
    _raw                        String                  DEFAULT '' CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(created_at)
ORDER BY (account, created_at, activity_id, observed_at)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Portfolio activities, one row per observed state of each activity';

-- The latest stores are now kept from the observation tables.
DROP VIEW IF EXISTS tapehouse.fills_latest_mv;

DROP VIEW IF EXISTS tapehouse.activities_latest_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.fill_observations_latest_mv TO tapehouse.fills_latest_store
AS SELECT * FROM tapehouse.fill_observations;

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.activity_observations_latest_mv TO tapehouse.activities_latest_store
AS SELECT * FROM tapehouse.activity_observations;

INSERT INTO tapehouse.fill_observations (account, fill_id, trade_id, order_id, token_id, condition_id, status, exchange, side, role,
    price_micro, shares_micro, fee_micro, executed_at, transaction_hash, source, observed_at,
    _topic, _partition, _offset, _index, _sync_job, _sync_run, _sync_page, _received_at, _raw)
SELECT account, fill_id, trade_id, order_id, token_id, condition_id, status, exchange, side, role,
    price_micro, shares_micro, fee_micro, executed_at, transaction_hash, source, observed_at,
    _topic, _partition, _offset, _index, _sync_job, _sync_run, _sync_page, _received_at, _raw
FROM tapehouse.fills
WHERE (SELECT count() FROM system.tables WHERE database = 'tapehouse' AND name = 'fills' AND engine = 'MergeTree') = 1;

INSERT INTO tapehouse.activity_observations (account, activity_id, type, order_id, condition_id, token_id, exchange, side, status,
    fill_status, filled_amount_micro, filled_shares_micro, average_fill_price_micro, fees_micro, created_at, observed_at,
    _topic, _partition, _offset, _index, _sync_job, _sync_run, _sync_page, _received_at, _raw)
SELECT account, activity_id, type, order_id, condition_id, token_id, exchange, side, status,
    fill_status, filled_amount_micro, filled_shares_micro, average_fill_price_micro, fees_micro, created_at, observed_at,
    _topic, _partition, _offset, _index, _sync_job, _sync_run, _sync_page, _received_at, _raw
FROM tapehouse.activities
WHERE (SELECT count() FROM system.tables WHERE database = 'tapehouse' AND name = 'activities' AND engine = 'MergeTree') = 1;

DROP TABLE IF EXISTS tapehouse.fills;

DROP TABLE IF EXISTS tapehouse.activities;

CREATE VIEW IF NOT EXISTS tapehouse.fills AS
SELECT *, notional_micro FROM tapehouse.fills_latest_store FINAL;

CREATE VIEW IF NOT EXISTS tapehouse.activities AS
SELECT * FROM tapehouse.activities_latest_store FINAL;

-- A positions read published twice (a sync job re-publishing across a crash, or the stream and
-- REST reading the same instant) is one snapshot: the latest view keeps one record's rows.
CREATE OR REPLACE VIEW tapehouse.positions_latest AS
SELECT *
FROM tapehouse.positions
WHERE (account, as_of, _topic, _partition, _offset) IN (
    SELECT account, newest.1, newest.2, newest.3, newest.4
    FROM (
        SELECT account, argMax((as_of, _topic, _partition, _offset), (as_of, _received_at, _offset)) AS newest
        FROM tapehouse.position_snapshots
        WHERE empty(unavailable_exchanges)
        GROUP BY account
    )
);
