-- Supported withdrawal chains and assets as read from the venue, one row per asset per read.

CREATE TABLE IF NOT EXISTS tapehouse.withdrawal_assets
(
    account             LowCardinality(String),
    observed_at         DateTime64(3, 'UTC'),
    wallet_address      String                      DEFAULT '',
    note                String                      DEFAULT '',
    address_type        LowCardinality(String)      DEFAULT '',
    chain_id            String                      DEFAULT '',
    chain_name          LowCardinality(String)      DEFAULT '',
    min_checkout_usd    String                      DEFAULT '',
    token_address       String                      DEFAULT '',
    token_symbol        LowCardinality(String)      DEFAULT '',
    token_name          String                      DEFAULT '',
    token_decimals      Nullable(UInt8),
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
PARTITION BY toYYYYMM(observed_at)
ORDER BY (account, observed_at, chain_id, token_address)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Supported withdrawal chains and assets, one row per asset per read';
