-- Every frame of the account stream, one row each (order, fill, position, redemption and collateral
-- frames, and kinds the interface does not name yet), so none is lost when it maps to no entity
-- table. Order and fill frames also land in orders and fill_observations as observed states.

CREATE TABLE IF NOT EXISTS tapehouse.account_events
(
    account         LowCardinality(String),
    kind            LowCardinality(String),
    event_at        DateTime64(3, 'UTC'),
    order_id        String                      DEFAULT '',
    fill_id         String                      DEFAULT '',
    token_id        String                      DEFAULT '',
    condition_id    String                      DEFAULT '',
    status          LowCardinality(String)      DEFAULT '',
    reason          LowCardinality(String)      DEFAULT '',
    _topic          LowCardinality(String),
    _partition      UInt32,
    _offset         UInt64,
    _index          UInt32                      DEFAULT 0,
    _received_at    DateTime64(6, 'UTC'),
    _raw            String                      DEFAULT '' CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(event_at)
ORDER BY (account, event_at, kind, _offset)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Account-stream frames, one row per frame (order, fill, position, redemption, collateral, newer kinds)';
