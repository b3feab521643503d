-- The category forest with its history. GET /categories/{slug} (no version prefix; shape not
-- shown, §4.2, §9.1) read for every category the catalogue names and every category those name
-- (root, path, parent, children). One row per observed content: a category is stored again only
-- when its answer changed, so a slug's rows are its history (a label renamed, a child added, a
-- category moved or gone). categories_latest is the forest now: join parent_slug to slug.

CREATE TABLE IF NOT EXISTS tapehouse.categories
(
    slug            String,
    found           Bool                            DEFAULT true,
    label           String                          DEFAULT '',
    root_slug       LowCardinality(String)          DEFAULT '',
    parent_slug     String                          DEFAULT '',
    path_slugs      Array(String)                   DEFAULT [],
    path_labels     Array(String)                   DEFAULT [],
    child_slugs     Array(String)                   DEFAULT [],
    is_leaf         Nullable(Bool),
    event_count     Nullable(UInt32),
    observed_at     DateTime64(3, 'UTC'),
    _topic          LowCardinality(String),
    _partition      UInt32,
    _offset         UInt64,
    _index          UInt32                          DEFAULT 0,
    _sync_job       LowCardinality(String)          DEFAULT '',
    _sync_run       String                          DEFAULT '',
    _sync_page      UInt32                          DEFAULT 0,
    _received_at    DateTime64(6, 'UTC'),
    _raw            String                          DEFAULT '' CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(observed_at)
ORDER BY (slug, observed_at)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Categories as read from /categories/{slug}, one row per observed content (a category''s history)';

CREATE TABLE IF NOT EXISTS tapehouse.categories_latest_store AS tapehouse.categories
ENGINE = ReplacingMergeTree(observed_at)
ORDER BY slug
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Newest observation per category (kept by categories_latest_mv; read it through categories_latest)';

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.categories_latest_mv TO tapehouse.categories_latest_store
AS SELECT * FROM tapehouse.categories;

CREATE VIEW IF NOT EXISTS tapehouse.categories_latest AS
SELECT * FROM tapehouse.categories_latest_store FINAL;
