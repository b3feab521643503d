-- The account's own data: orders, fills, portfolio, PnL, rebates, activities, LP incentives.
-- Rows come from the account and portfolio streams and from the sync jobs; `source` says which
-- (for example rest:orders/list, ws:order_cancelled, sse:portfolio.sync). `account` is the label
-- of the account the access token belongs to, so one warehouse can hold several.
-- Entity tables keep every observation (observed_at = when the state was read or announced) and
-- give *_latest views like the catalogue's.

CREATE TABLE IF NOT EXISTS tapehouse.orders
(
    account                     LowCardinality(String),
    order_id                    String,
    status                      LowCardinality(String),
    is_terminal                 Bool                        DEFAULT false,
    type                        LowCardinality(String)      DEFAULT '',
    side                        LowCardinality(String)      DEFAULT '',
    token_id                    String                      DEFAULT '',
    condition_id                String                      DEFAULT '',
    exchange                    LowCardinality(String)      DEFAULT '',
    price_micro                 Nullable(Int64),
    original_size_micro         Nullable(Int64),
    size_matched_micro          Int64                       DEFAULT 0,
    collateral_amount_micro     Nullable(Int64),
    avg_fill_price_micro        Nullable(Int64),
    created_at                  Nullable(DateTime64(3, 'UTC')),
    expiration                  Nullable(DateTime64(3, 'UTC')),
    cancel_requested_at         Nullable(DateTime64(3, 'UTC')),
    cancel_reason               LowCardinality(String)      DEFAULT '',
    failure_code                LowCardinality(String)      DEFAULT '',
    failure_title               String                      DEFAULT '',
    failure_detail              String                      DEFAULT '',
    failure_recovery_strategy   LowCardinality(String)      DEFAULT '',
    source                      LowCardinality(String),
    observed_at                 DateTime64(3, 'UTC'),
    _topic                      LowCardinality(String),
    _partition                  UInt32,
    _offset                     UInt64,
    _index                      UInt32                      DEFAULT 0,
    _sync_job                   LowCardinality(String)      DEFAULT '',
    _sync_run                   String                      DEFAULT '',
    _sync_page                  UInt32                      DEFAULT 0,
    _received_at                DateTime64(6, 'UTC'),
    _raw                        String                      DEFAULT '' CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(observed_at)
ORDER BY (account, order_id, observed_at)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'The account''s orders, one row per observed state (REST reads and account-stream events)';

CREATE TABLE IF NOT EXISTS tapehouse.orders_latest_store AS tapehouse.orders
ENGINE = ReplacingMergeTree(observed_at)
ORDER BY (account, order_id)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Newest observation per order (kept by orders_latest_mv; read it through orders_latest)';

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.orders_latest_mv TO tapehouse.orders_latest_store
AS SELECT * FROM tapehouse.orders;

CREATE VIEW IF NOT EXISTS tapehouse.orders_latest AS
SELECT * FROM tapehouse.orders_latest_store FINAL;

CREATE TABLE IF NOT EXISTS tapehouse.fills
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
COMMENT 'The account''s fills, one row per observed state of each fill (settlement status can change)';

CREATE TABLE IF NOT EXISTS tapehouse.fills_latest_store AS tapehouse.fills
ENGINE = ReplacingMergeTree(observed_at)
ORDER BY (account, fill_id)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Newest observation per fill (kept by fills_latest_mv; read it through fills_latest)';

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.fills_latest_mv TO tapehouse.fills_latest_store
AS SELECT * FROM tapehouse.fills;

CREATE VIEW IF NOT EXISTS tapehouse.fills_latest AS
SELECT *, notional_micro FROM tapehouse.fills_latest_store FINAL;

CREATE TABLE IF NOT EXISTS tapehouse.position_snapshots
(
    account                 LowCardinality(String),
    as_of                   DateTime64(3, 'UTC'),
    position_count          UInt32,
    unavailable_exchanges   Array(LowCardinality(String))   DEFAULT [],
    stream_id               String                          DEFAULT '',
    stream_seq              String                          DEFAULT '',
    source                  LowCardinality(String),
    _topic                  LowCardinality(String),
    _partition              UInt32,
    _offset                 UInt64,
    _index                  UInt32                          DEFAULT 0,
    _sync_job               LowCardinality(String)          DEFAULT '',
    _sync_run               String                          DEFAULT '',
    _sync_page              UInt32                          DEFAULT 0,
    _received_at            DateTime64(6, 'UTC'),
    _raw                    String                          DEFAULT '' CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(as_of)
ORDER BY (account, as_of)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'One row per complete positions read (stream or REST), even an empty one: it says which positions rows form a snapshot';

CREATE TABLE IF NOT EXISTS tapehouse.positions
(
    account                 LowCardinality(String),
    as_of                   DateTime64(3, 'UTC'),
    token_id                String,
    condition_id            String                      DEFAULT '',
    exchange                LowCardinality(String)      DEFAULT '',
    accounting_status       LowCardinality(String)      DEFAULT '',
    shares_micro            Int64,
    available_shares_micro  Int64                       DEFAULT 0,
    mergeable_shares_micro  Int64                       DEFAULT 0,
    mergeable               Bool                        DEFAULT false,
    redeemable              Bool                        DEFAULT false,
    avg_price_micro         Nullable(Int64),
    current_price_micro     Nullable(Int64),
    current_value_micro     Nullable(Int64),
    open_cost_basis_micro   Nullable(Int64),
    profit_loss_micro       Nullable(Int64),
    profit_loss_percent     Nullable(Float64),
    to_win_micro            Nullable(Int64),
    source                  LowCardinality(String),
    _topic                  LowCardinality(String),
    _partition              UInt32,
    _offset                 UInt64,
    _index                  UInt32                      DEFAULT 0,
    _sync_job               LowCardinality(String)      DEFAULT '',
    _sync_run               String                      DEFAULT '',
    _sync_page              UInt32                      DEFAULT 0,
    _received_at            DateTime64(6, 'UTC'),
    _raw                    String                      DEFAULT '' CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(as_of)
ORDER BY (account, as_of, token_id)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Positions, one row per position per snapshot (as_of = the snapshot, see position_snapshots)';

-- A position sold out simply disappears from the next snapshot, so "latest" is the newest usable
-- snapshot as a whole, not the newest row per token.
CREATE VIEW IF NOT EXISTS tapehouse.positions_latest AS
SELECT *
FROM tapehouse.positions
WHERE (account, as_of) IN (
    SELECT account, max(as_of)
    FROM tapehouse.position_snapshots
    WHERE empty(unavailable_exchanges)
    GROUP BY account
);

CREATE TABLE IF NOT EXISTS tapehouse.portfolio_summaries
(
    account                     LowCardinality(String),
    exchange                    LowCardinality(String)  DEFAULT '',
    as_of                       DateTime64(3, 'UTC'),
    accounting_status           LowCardinality(String)  DEFAULT '',
    cash_balance_micro          Int64,
    free_cash_micro             Int64                   DEFAULT 0,
    open_cost_basis_micro       Int64                   DEFAULT 0,
    open_unrealized_pnl_micro   Int64                   DEFAULT 0,
    portfolio_value_micro       Int64                   DEFAULT 0,
    positions_value_micro       Int64                   DEFAULT 0,
    source                      LowCardinality(String),
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
PARTITION BY toYYYYMM(as_of)
ORDER BY (account, exchange, as_of)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Portfolio summary per exchange, one row per observation';

CREATE TABLE IF NOT EXISTS tapehouse.portfolio_summaries_latest_store AS tapehouse.portfolio_summaries
ENGINE = ReplacingMergeTree(as_of)
ORDER BY (account, exchange)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Newest summary per account and exchange (read it through portfolio_summaries_latest)';

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.portfolio_summaries_latest_mv TO tapehouse.portfolio_summaries_latest_store
AS SELECT * FROM tapehouse.portfolio_summaries;

CREATE VIEW IF NOT EXISTS tapehouse.portfolio_summaries_latest AS
SELECT * FROM tapehouse.portfolio_summaries_latest_store FINAL;

CREATE TABLE IF NOT EXISTS tapehouse.pnl_settled
(
    account                     LowCardinality(String),
    bucket_at                   DateTime64(3, 'UTC'),
    chain_id                    Int64                   DEFAULT 0,
    classification_version      Int64                   DEFAULT 0,
    collateral_micro            Int64                   DEFAULT 0,
    cumulative_inflow_micro     Int64                   DEFAULT 0,
    cumulative_outflow_micro    Int64                   DEFAULT 0,
    custody_through_block       Int64                   DEFAULT 0,
    custody_through_block_hash  String                  DEFAULT '',
    custody_through_block_time  Nullable(DateTime64(3, 'UTC')),
    lifetime_pnl_micro          Int64                   DEFAULT 0,
    mark_captured_at            Nullable(DateTime64(3, 'UTC')),
    mark_run_id                 String                  DEFAULT '',
    position_count              Int64                   DEFAULT 0,
    positions_value_micro       Int64                   DEFAULT 0,
    wallet_universe_generation  Int64                   DEFAULT 0,
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
PARTITION BY toYYYYMM(observed_at)
ORDER BY (account, bucket_at, observed_at)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Settled PnL buckets as read from the venue, one row per observation of each bucket';

CREATE TABLE IF NOT EXISTS tapehouse.pnl_settled_latest_store AS tapehouse.pnl_settled
ENGINE = ReplacingMergeTree(observed_at)
ORDER BY (account, bucket_at, chain_id)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Newest observation per PnL bucket (read it through pnl_settled_latest)';

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.pnl_settled_latest_mv TO tapehouse.pnl_settled_latest_store
AS SELECT * FROM tapehouse.pnl_settled;

CREATE VIEW IF NOT EXISTS tapehouse.pnl_settled_latest AS
SELECT * FROM tapehouse.pnl_settled_latest_store FINAL;

CREATE TABLE IF NOT EXISTS tapehouse.rebates
(
    account             LowCardinality(String),
    lp_incentive_micro  Int64                   DEFAULT 0,
    maker_rebate_micro  Int64                   DEFAULT 0,
    vip_rebate_micro    Int64                   DEFAULT 0,
    total_micro         Int64                   DEFAULT 0,
    observed_at         DateTime64(3, 'UTC'),
    _topic              LowCardinality(String),
    _partition          UInt32,
    _offset             UInt64,
    _index              UInt32                  DEFAULT 0,
    _sync_job           LowCardinality(String)  DEFAULT '',
    _sync_run           String                  DEFAULT '',
    _sync_page          UInt32                  DEFAULT 0,
    _received_at        DateTime64(6, 'UTC'),
    _raw                String                  DEFAULT '' CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(observed_at)
ORDER BY (account, observed_at)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Rebate totals as read from the venue, one row per observation';

CREATE TABLE IF NOT EXISTS tapehouse.activities
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

CREATE TABLE IF NOT EXISTS tapehouse.activities_latest_store AS tapehouse.activities
ENGINE = ReplacingMergeTree(observed_at)
ORDER BY (account, activity_id)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Newest observation per activity (read it through activities_latest)';

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.activities_latest_mv TO tapehouse.activities_latest_store
AS SELECT * FROM tapehouse.activities;

CREATE VIEW IF NOT EXISTS tapehouse.activities_latest AS
SELECT * FROM tapehouse.activities_latest_store FINAL;

CREATE TABLE IF NOT EXISTS tapehouse.lp_incentives
(
    account                 LowCardinality(String),
    epoch_date              String,
    epoch_ends_at           Nullable(DateTime64(3, 'UTC')),
    eligible                Bool                    DEFAULT false,
    market_id               String,
    question                String                  DEFAULT '',
    event_slug              String                  DEFAULT '',
    event_title             String                  DEFAULT '',
    close_time              Nullable(DateTime64(3, 'UTC')),
    phase                   LowCardinality(String)  DEFAULT '',
    pool_micro              Int64                   DEFAULT 0,
    max_spread_micro        Int64                   DEFAULT 0,
    min_shares_micro        Int64                   DEFAULT 0,
    epoch_score             Float64                 DEFAULT 0,
    market_total_score      Float64                 DEFAULT 0,
    projected_payout_micro  Int64                   DEFAULT 0,
    observed_at             DateTime64(3, 'UTC'),
    _topic                  LowCardinality(String),
    _partition              UInt32,
    _offset                 UInt64,
    _index                  UInt32                  DEFAULT 0,
    _sync_job               LowCardinality(String)  DEFAULT '',
    _sync_run               String                  DEFAULT '',
    _sync_page              UInt32                  DEFAULT 0,
    _received_at            DateTime64(6, 'UTC'),
    _raw                    String                  DEFAULT '' CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(observed_at)
ORDER BY (account, epoch_date, market_id, observed_at)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'LP-incentive opportunities per market and epoch, one row per observation';

CREATE TABLE IF NOT EXISTS tapehouse.lp_incentives_latest_store AS tapehouse.lp_incentives
ENGINE = ReplacingMergeTree(observed_at)
ORDER BY (account, epoch_date, market_id)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Newest observation per market and epoch (read it through lp_incentives_latest)';

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.lp_incentives_latest_mv TO tapehouse.lp_incentives_latest_store
AS SELECT * FROM tapehouse.lp_incentives;

CREATE VIEW IF NOT EXISTS tapehouse.lp_incentives_latest AS
SELECT * FROM tapehouse.lp_incentives_latest_store FINAL;

CREATE VIEW IF NOT EXISTS tapehouse.rebates_latest AS
SELECT *
FROM tapehouse.rebates
ORDER BY account, observed_at DESC
LIMIT 1 BY account;
