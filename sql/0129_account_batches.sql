-- Account batches (§2.4) and the withdrawals they carry, as the account_batches job reads them
-- (GET /trade/v1/batches/{batch_hash}, until the outcome is known). One row per observed state:
-- a batch read again unchanged is not stored again, so a hash's rows are its history (PENDING,
-- then EXECUTED, FAILED or SUPERSEDED...). A batch with a withdrawal object also gives a
-- withdrawal_states row at each of those reads: the withdrawal's own states (QUEUED, ...; source
-- and destination legs) over time. *_latest: what each is now.

CREATE TABLE IF NOT EXISTS tapehouse.account_batches
(
    account                     LowCardinality(String),
    batch_hash                  String,
    seq                         Nullable(Int64),
    status                      LowCardinality(String)          DEFAULT '',
    origin                      LowCardinality(String)          DEFAULT '',
    created_at                  Nullable(DateTime64(3, 'UTC')),
    executed_at                 Nullable(DateTime64(3, 'UTC')),
    unwound_at                  Nullable(DateTime64(3, 'UTC')),
    deadline_unix_seconds       Nullable(Int64),
    tx_hash                     String                          DEFAULT '',
    heals_batch_hash            String                          DEFAULT '',
    superseded_by_batch_hash    String                          DEFAULT '',
    failure_code                LowCardinality(String)          DEFAULT '',
    op_kinds                    Array(LowCardinality(String))   DEFAULT [],
    withdrawal_state            LowCardinality(String)          DEFAULT '',
    observed_at                 DateTime64(3, 'UTC'),
    _topic                      LowCardinality(String),
    _partition                  UInt32,
    _offset                     UInt64,
    _index                      UInt32                          DEFAULT 0,
    _sync_job                   LowCardinality(String)          DEFAULT '',
    _sync_run                   String                          DEFAULT '',
    _sync_page                  UInt32                          DEFAULT 0,
    _received_at                DateTime64(6, 'UTC'),
    _raw                        String                          DEFAULT '' CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(observed_at)
ORDER BY (account, batch_hash, observed_at)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Account batches as read, one row per observed state';

CREATE TABLE IF NOT EXISTS tapehouse.account_batches_latest_store AS tapehouse.account_batches
ENGINE = ReplacingMergeTree(observed_at)
ORDER BY (account, batch_hash)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Newest observation per batch (kept by account_batches_latest_mv; read it through account_batches_latest)';

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.account_batches_latest_mv TO tapehouse.account_batches_latest_store
AS SELECT * FROM tapehouse.account_batches;

CREATE VIEW IF NOT EXISTS tapehouse.account_batches_latest AS
SELECT * FROM tapehouse.account_batches_latest_store FINAL;

CREATE TABLE IF NOT EXISTS tapehouse.withdrawal_states
(
    account                     LowCardinality(String),
    batch_hash                  String,
    state                       LowCardinality(String)          DEFAULT '',
    updated_at                  Nullable(DateTime64(3, 'UTC')),
    source_chain_id             String                          DEFAULT '',
    source_status               LowCardinality(String)          DEFAULT '',
    source_tx_hash              String                          DEFAULT '',
    source_confirmed_at         Nullable(DateTime64(3, 'UTC')),
    destination_chain_id        String                          DEFAULT '',
    destination_status          LowCardinality(String)          DEFAULT '',
    destination_path            LowCardinality(String)          DEFAULT '',
    destination_tx              String                          DEFAULT '',
    destination_delivered_at    Nullable(DateTime64(3, 'UTC')),
    observed_at                 DateTime64(3, 'UTC'),
    _topic                      LowCardinality(String),
    _partition                  UInt32,
    _offset                     UInt64,
    _index                      UInt32                          DEFAULT 0,
    _sync_job                   LowCardinality(String)          DEFAULT '',
    _sync_run                   String                          DEFAULT '',
    _sync_page                  UInt32                          DEFAULT 0,
    _received_at                DateTime64(6, 'UTC'),
    _raw                        String                          DEFAULT '' CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(observed_at)
ORDER BY (account, batch_hash, observed_at)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Withdrawal states as read from their account batches, one row per observed state';

CREATE TABLE IF NOT EXISTS tapehouse.withdrawal_states_latest_store AS tapehouse.withdrawal_states
ENGINE = ReplacingMergeTree(observed_at)
ORDER BY (account, batch_hash)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Newest observation per withdrawal (kept by withdrawal_states_latest_mv; read it through withdrawal_states_latest)';

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.withdrawal_states_latest_mv TO tapehouse.withdrawal_states_latest_store
AS SELECT * FROM tapehouse.withdrawal_states;

CREATE VIEW IF NOT EXISTS tapehouse.withdrawal_states_latest AS
SELECT * FROM tapehouse.withdrawal_states_latest_store FINAL;
