-- Market lifecycle timeline over market_status: each status event of a market in order, with the
-- one before it and the time between them, and whether the market accepts orders afterwards.
-- A per-market summary gives first seen, halts, proposals and final resolution at a glance.
-- (kind is LowCardinality, so comparisons on it are cast to Bool to keep the view's types plain.)

CREATE VIEW IF NOT EXISTS tapehouse.market_lifecycle AS
SELECT
    condition_id,
    status_at,
    kind,
    row_number() OVER w                                             AS step,
    lagInFrame(kind, 1, '') OVER w                                  AS previous_kind,
    lagInFrame(status_at, 1, status_at) OVER w                      AS previous_status_at,
    dateDiff('millisecond', previous_status_at, status_at)          AS ms_since_previous,
    multiIf(kind IN ('market_halted', 'market_resolved', 'payouts_resolved'), 0,
            kind = 'market_resumed', 1,
            NULL)                                                   AS accepting_orders_after,
    CAST(kind IN ('market_resolved', 'payouts_resolved') AS Bool)   AS is_final,
    CAST(kind IN ('outcome_proposed', 'payouts_proposed') AS Bool)  AS is_proposal,
    market_id,
    event_id,
    reason,
    winning_token_id,
    payout_token_ids,
    payouts_micro,
    new_market_id,
    new_condition_id,
    new_token_ids,
    _received_at
FROM tapehouse.market_status
WHERE condition_id != ''
WINDOW w AS (PARTITION BY condition_id ORDER BY status_at, sequence, _offset, _index
             ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);

CREATE VIEW IF NOT EXISTS tapehouse.market_lifecycle_summary AS
SELECT
    s.condition_id                                                              AS condition_id,
    min(s.status_at)                                                            AS first_status_at,
    max(s.status_at)                                                            AS last_status_at,
    argMax(s.kind, (s.status_at, s.sequence, s._offset, s._index))              AS last_kind,
    countIf(s.kind = 'market_halted')                                           AS halts,
    countIf(s.kind = 'market_resumed')                                          AS resumes,
    countIf(s.kind IN ('outcome_proposed', 'payouts_proposed'))                 AS proposals,
    minIf(s.status_at, s.kind IN ('market_resolved', 'payouts_resolved'))       AS resolved_at,
    CAST(countIf(s.kind IN ('market_resolved', 'payouts_resolved')) > 0 AS Bool) AS is_resolved,
    argMaxIf(s.winning_token_id, (s.status_at, s.sequence), s.kind = 'market_resolved') AS winning_token_id
FROM tapehouse.market_status AS s
WHERE s.condition_id != ''
GROUP BY s.condition_id;
