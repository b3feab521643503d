-- What capture found wrong in what the venue sent (a crossed or locked book, a malformed level, a
-- duplicate price), one row per finding. Capture keeps the data as sent and says so here.

CREATE TABLE IF NOT EXISTS tapehouse.data_quality
(
    token_id        String                      DEFAULT '',
    condition_id    String                      DEFAULT '',
    problem         LowCardinality(String),
    detail          String                      DEFAULT '',
    sequence        UInt64                      DEFAULT 0,
    detected_at     DateTime64(6, 'UTC'),
    _topic          LowCardinality(String),
    _partition      UInt32,
    _offset         UInt64,
    _index          UInt32                      DEFAULT 0,
    _received_at    DateTime64(6, 'UTC'),
    _raw            String                      DEFAULT '' CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(detected_at)
ORDER BY (token_id, detected_at, problem)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Problems capture found in the venue''s data (crossed or locked books, malformed levels), one row per finding';
