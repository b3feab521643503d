-- Tables the dashboards read that the warehouse does not have yet. Their owner adds them as a
-- migration in sql/ (reconciliations: the reconciler, `tapehouse reconcile`); until then the panels
-- on them show "table does not exist". These are the shapes the panels are written against; the
-- dashboards' tests create them from this file. Columns may be added freely; renaming or removing
-- one means changing the panels in the same commit. (pipeline_health, written against the same
-- kind of description, is now sql/0080_pipeline_health.sql.)

-- One row per figure a `tapehouse reconcile` run compared: ours (recomputed from fills and the
-- rest of the warehouse) against theirs (what the venue reported). scope: what was compared
-- ('position', 'summary', 'pnl_settled', 'rebates'); field: the venue's column name
-- ('avg_price_micro', 'cash_balance_micro', …); token_id/condition_id: '' when not per token.
-- status: 'ok' (equal within tolerance), 'different', or 'unproven' (coverage gaps in fills or
-- activities: the comparison cannot be trusted); detail: the fills or gaps that explain it.
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
