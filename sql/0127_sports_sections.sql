-- The live sports sections: GET /api/v1/events?filter=sports_live answers leaf-category sections
-- with their events (§4.2), one answer without pagination. Each read is one sports_section_reads
-- row (even when no section is live, so "nothing live" is a fact, not a missing row) and one
-- sports_sections row per section, in the venue's order. sports_sections_latest gives the
-- sections of the newest read.

CREATE TABLE IF NOT EXISTS tapehouse.sports_section_reads
(
    observed_at     DateTime64(3, 'UTC'),
    section_count   UInt32,
    event_count     UInt32,
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
ORDER BY observed_at
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Reads of the live sports sections (filter=sports_live), one row per read';

CREATE TABLE IF NOT EXISTS tapehouse.sports_sections
(
    observed_at     DateTime64(3, 'UTC'),
    position        UInt32,
    category_slug   LowCardinality(String)      DEFAULT '',
    category_label  LowCardinality(String)      DEFAULT '',
    event_ids       Array(String)               DEFAULT [],
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
ORDER BY (observed_at, position)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Live sports sections (leaf category and its live events), one row per section per read';

CREATE VIEW IF NOT EXISTS tapehouse.sports_sections_latest AS
SELECT * FROM tapehouse.sports_sections
WHERE observed_at = (SELECT max(observed_at) FROM tapehouse.sports_section_reads);
