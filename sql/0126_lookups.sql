-- The lookup maps of the account's list pages (§2.5): `markets{}` and `events{}` of open-orders,
-- order-list and portfolio-trades pages, and `conditions{}` too on activities pages. They name
-- what an order, fill or activity is about (market title, outcome name, event) as the venue
-- showed it then. One row per observed entry: the sync jobs publish an entry again only when its
-- content changed, so the table is each entry's history; lookups_latest is what it is now.

CREATE TABLE IF NOT EXISTS tapehouse.lookups
(
    account         LowCardinality(String),
    map             LowCardinality(String),
    lookup_key      String,
    list            LowCardinality(String)      DEFAULT '',
    market_id       String                      DEFAULT '',
    market_title    String                      DEFAULT '',
    event_slug      String                      DEFAULT '',
    event_title     String                      DEFAULT '',
    logo_url        String                      DEFAULT '',
    neg_risk_id     String                      DEFAULT '',
    outcome_name    String                      DEFAULT '',
    state           LowCardinality(String)      DEFAULT '',
    display         String                      DEFAULT '',
    observed_at     DateTime64(3, 'UTC'),
    _topic          LowCardinality(String),
    _partition      UInt32,
    _offset         UInt64,
    _index          UInt32                      DEFAULT 0,
    _sync_job       LowCardinality(String)      DEFAULT '',
    _sync_run       String                      DEFAULT '',
    _sync_page      UInt32                      DEFAULT 0,
    _received_at    DateTime64(6, 'UTC'),
    _raw            String                      DEFAULT '' CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(observed_at)
ORDER BY (account, map, lookup_key, observed_at)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Entries of the lookup maps of the account''s list pages (markets, events, conditions), one row per observed content';

CREATE TABLE IF NOT EXISTS tapehouse.lookups_latest_store AS tapehouse.lookups
ENGINE = ReplacingMergeTree(observed_at)
ORDER BY (account, map, lookup_key)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Newest observation per lookup entry (kept by lookups_latest_mv; read it through lookups_latest)';

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.lookups_latest_mv TO tapehouse.lookups_latest_store
AS SELECT * FROM tapehouse.lookups;

CREATE VIEW IF NOT EXISTS tapehouse.lookups_latest AS
SELECT * FROM tapehouse.lookups_latest_store FINAL;
