-- The catalogue (events, markets, outcomes) as paged by the sync jobs.
-- Entity tables keep history: one row per observation, versioned by observed_at (when the
-- venue's answer was read). Each has a *_latest view: the newest observation per key, served
-- from a small ReplacingMergeTree store kept by a materialized view and read with FINAL, so
-- "latest" is exact at query time, not only after background merges.

CREATE TABLE IF NOT EXISTS tapehouse.events
(
    event_id                String,
    slug                    String,
    title                   String                          DEFAULT '',
    event_type              LowCardinality(String)          DEFAULT '',
    state                   LowCardinality(String)          DEFAULT '',
    resolution_status       LowCardinality(String)          DEFAULT '',
    is_accepting_orders     Bool                            DEFAULT false,
    is_live                 Bool                            DEFAULT false,
    is_group_root           Bool                            DEFAULT false,
    start_time              Nullable(DateTime64(3, 'UTC')),
    end_time                Nullable(DateTime64(3, 'UTC')),
    volume_micro            Int64                           DEFAULT 0,
    main_market_id          String                          DEFAULT '',
    neg_risk_id             String                          DEFAULT '',
    primary_category_slug   LowCardinality(String)          DEFAULT '',
    primary_category_label  LowCardinality(String)          DEFAULT '',
    category_slugs          Array(LowCardinality(String))   DEFAULT [],
    market_count            Nullable(UInt32),
    market_ids              Array(String)                   DEFAULT [],
    disputed_market_count   Nullable(UInt32),
    resolved_market_count   Nullable(UInt32),
    sport_group             LowCardinality(String)          DEFAULT '',
    game_lifecycle          LowCardinality(String)          DEFAULT '',
    live_label              String                          DEFAULT '',
    is_detail               Bool                            DEFAULT false,
    observed_at             DateTime64(3, 'UTC'),
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
PARTITION BY toYYYYMM(observed_at)
ORDER BY (event_id, observed_at)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Catalogue events, one row per observation (list or detail read)';

CREATE TABLE IF NOT EXISTS tapehouse.events_latest_store AS tapehouse.events
ENGINE = ReplacingMergeTree(observed_at)
ORDER BY event_id
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Newest observation per event (kept by events_latest_mv; read it through events_latest)';

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.events_latest_mv TO tapehouse.events_latest_store
AS SELECT * FROM tapehouse.events;

CREATE VIEW IF NOT EXISTS tapehouse.events_latest AS
SELECT * FROM tapehouse.events_latest_store FINAL;

CREATE TABLE IF NOT EXISTS tapehouse.markets
(
    market_id                   String,
    condition_id                String                      DEFAULT '',
    event_id                    String                      DEFAULT '',
    slug                        String                      DEFAULT '',
    question                    String                      DEFAULT '',
    neg_risk_id                 String                      DEFAULT '',
    state                       LowCardinality(String)      DEFAULT '',
    exchange                    LowCardinality(String)      DEFAULT '',
    display_type                LowCardinality(String)      DEFAULT '',
    source_market_type          LowCardinality(String)      DEFAULT '',
    line                        String                      DEFAULT '',
    display_label               String                      DEFAULT '',
    resolution_outcome          String                      DEFAULT '',
    is_accepting_orders         Bool                        DEFAULT false,
    halted_at                   Nullable(DateTime64(3, 'UTC')),
    halted_reason               String                      DEFAULT '',
    resolved_at                 Nullable(DateTime64(3, 'UTC')),
    archived_at                 Nullable(DateTime64(3, 'UTC')),
    volume_micro                Int64                       DEFAULT 0,
    volume_24h_micro            Int64                       DEFAULT 0,
    liquidity                   String                      DEFAULT '',
    tick_size_micro             Nullable(Int64),
    min_order_size_micro        Nullable(Int64),
    engine_tick_size            Nullable(Int64),
    engine_price_scale          Nullable(Int64),
    engine_size_scale           Nullable(Int64),
    engine_min_price            Nullable(Int64),
    engine_max_price            Nullable(Int64),
    resolution_status           LowCardinality(String)      DEFAULT '',
    resolution_source           String                      DEFAULT '',
    resolution_reference_value  String                      DEFAULT '',
    resolution_observed_value   String                      DEFAULT '',
    resolution_observed_at      Nullable(DateTime64(3, 'UTC')),
    three_way_role              LowCardinality(String)      DEFAULT '',
    is_three_way                Bool                        DEFAULT false,
    game_number                 Nullable(Int32),
    lp_pool_micro               Nullable(Int64),
    lp_max_spread_micro         Nullable(Int64),
    lp_min_shares_micro         Nullable(Int64),
    token_ids                   Array(String)               DEFAULT [],
    is_detail                   Bool                        DEFAULT false,
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
ORDER BY (market_id, observed_at)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Catalogue markets, one row per observation';

CREATE TABLE IF NOT EXISTS tapehouse.markets_latest_store AS tapehouse.markets
ENGINE = ReplacingMergeTree(observed_at)
ORDER BY market_id
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Newest observation per market (kept by markets_latest_mv; read it through markets_latest)';

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.markets_latest_mv TO tapehouse.markets_latest_store
AS SELECT * FROM tapehouse.markets;

CREATE VIEW IF NOT EXISTS tapehouse.markets_latest AS
SELECT * FROM tapehouse.markets_latest_store FINAL;

CREATE TABLE IF NOT EXISTS tapehouse.outcomes
(
    token_id                String,
    outcome_id              String                      DEFAULT '',
    market_id               String                      DEFAULT '',
    condition_id            String                      DEFAULT '',
    outcome_index           UInt16                      DEFAULT 0,
    label                   String                      DEFAULT '',
    short_label             String                      DEFAULT '',
    price_micro             Nullable(Int64),
    best_bid_micro          Nullable(Int64),
    best_ask_micro          Nullable(Int64),
    spread_micro            Nullable(Int64),
    resolution_price_micro  Nullable(Int64),
    bet_slip_title          String                      DEFAULT '',
    resolution_label        String                      DEFAULT '',
    kind                    LowCardinality(String)      DEFAULT '',
    team_side               LowCardinality(String)      DEFAULT '',
    side                    LowCardinality(String)      DEFAULT '',
    threshold               Nullable(Float64),
    observed_at             DateTime64(3, 'UTC'),
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
PARTITION BY toYYYYMM(observed_at)
ORDER BY (token_id, observed_at)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Market outcomes (tradable tokens), one row per observation';

CREATE TABLE IF NOT EXISTS tapehouse.outcomes_latest_store AS tapehouse.outcomes
ENGINE = ReplacingMergeTree(observed_at)
ORDER BY token_id
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Newest observation per outcome token (kept by outcomes_latest_mv; read it through outcomes_latest)';

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.outcomes_latest_mv TO tapehouse.outcomes_latest_store
AS SELECT * FROM tapehouse.outcomes;

CREATE VIEW IF NOT EXISTS tapehouse.outcomes_latest AS
SELECT * FROM tapehouse.outcomes_latest_store FINAL;
