-- Results of `tapehouse reconcile` (src/reconcile/README.md): one row per figure a run compared,
-- ours (rebuilt from the account's fills and the rest of the warehouse) against theirs (what the
-- venue reported). The account dashboard shows the latest run's differences. A run's id is its
-- insert's deduplication token, so a store retried after a failure lands once.

CREATE TABLE IF NOT EXISTS tapehouse.reconciliations
(
    run_id              String,
    reconciled_at       DateTime64(3, 'UTC'),
    account             LowCardinality(String),
    scope               LowCardinality(String),
    token_id            String                      DEFAULT '',
    condition_id        String                      DEFAULT '',
    field               LowCardinality(String),
    ours_micro          Int64,
    theirs_micro        Int64,
    difference_micro    Int64,
    status              LowCardinality(String),
    detail              String                      DEFAULT '' CODEC(ZSTD(3)),
    reported_at         DateTime64(3, 'UTC'),
    method              LowCardinality(String)      DEFAULT 'average',
    tolerance_micro     Int64                       DEFAULT 0
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(reconciled_at)
ORDER BY (account, reconciled_at, run_id, scope, field, token_id)
SETTINGS non_replicated_deduplication_window = 1000
COMMENT 'tapehouse reconcile: each figure compared, ours against the venue''s, with its status (ok, different, unproven) and why';
