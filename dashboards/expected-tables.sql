-- Tables the dashboards read that the warehouse does not have yet. Their owners add them as
-- migrations in sql/ (the main job: pipeline_health; the reconciler: reconciliations); until then
-- the panels on them show "table does not exist". These are the shapes the panels are written
-- against; the dashboards' tests create them from this file. Columns may be added freely; renaming
-- or removing one means changing the panels in the same commit.

-- Periodic samples of the main job's figures (the ones its status line shows), one row per
-- sample, component, subject and metric.
--   metric       component  subject           value
--   frames       capture    stream name       frames received since the previous sample (counter increase)
--   reconnects   capture    stream name       reconnections since the previous sample
--   http_429     capture    stream name       429 answers since the previous sample (streams' REST recovery)
--   http_429     sync       sync job          429 answers since the previous sample
--   lag_records  loader     bus topic         records published and not yet loaded, at sampled_at (gauge)
--   lag_ms       loader     target table      venue time of the newest loaded row to sampled_at, in ms (gauge)
-- Counters are increases, not running totals, so a restart needs no reset handling and sum()
-- over any window is the count in it. (Rows loaded per table come from loader_offsets.)
CREATE TABLE IF NOT EXISTS tapehouse.pipeline_health
(
    sampled_at      DateTime64(3, 'UTC'),
    component       LowCardinality(String),
    subject         String,
    metric          LowCardinality(String),
    value           Float64,
    interval_ms     UInt32                      DEFAULT 0
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(sampled_at)
ORDER BY (metric, component, subject, sampled_at);

-- One row per figure a `tapehouse reconcile` run compared: ours (recomputed from fills and the
-- rest of the warehouse) against theirs (what the venue reported). status: 'ok' (equal within
-- tolerance), 'different', or 'unproven' (coverage gaps: the comparison cannot be trusted).
CREATE TABLE IF NOT EXISTS tapehouse.reconciliations
(
    run_id          String,
    reconciled_at   DateTime64(3, 'UTC'),
    account         LowCardinality(String),
    scope           LowCardinality(String),
    token_id        String                      DEFAULT '',
    condition_id    String                      DEFAULT '',
    field           LowCardinality(String),
    ours_micro      Int64,
    theirs_micro    Int64,
    difference_micro Int64,
    status          LowCardinality(String),
    detail          String                      DEFAULT ''
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(reconciled_at)
ORDER BY (account, reconciled_at, run_id, scope, field, token_id);
