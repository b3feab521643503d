-- Loader and sync bookkeeping, and dead letters.
-- Tables the loaders insert into with a deduplication token keep a non_replicated_deduplication_window:
-- without it MergeTree does not deduplicate at all (insert_deduplicate alone is not enough).

CREATE TABLE IF NOT EXISTS tapehouse.dead_letters
(
    topic           LowCardinality(String),
    partition       UInt32,
    offset          UInt64,
    key             String                      DEFAULT '',
    consumer_group  LowCardinality(String)      DEFAULT '',
    target_table    LowCardinality(String)      DEFAULT '',
    error_code      LowCardinality(String),
    reason          String,
    raw             String                      CODEC(ZSTD(3)),
    received_at     DateTime64(6, 'UTC')        DEFAULT now64(6),
    failed_at       DateTime64(6, 'UTC')        DEFAULT now64(6)
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(failed_at)
ORDER BY (topic, partition, offset)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Bus records that could not be mapped to a row: where they were, why, and the payload as received';

CREATE TABLE IF NOT EXISTS tapehouse.loader_offsets
(
    consumer_group  LowCardinality(String),
    topic           LowCardinality(String),
    partition       UInt32,
    target_table    LowCardinality(String),
    min_offset      UInt64,
    max_offset      UInt64,
    row_count       UInt64,
    dedup_token     String,
    state           LowCardinality(String),
    loader_id       String                      DEFAULT '',
    recorded_at     DateTime64(6, 'UTC')        DEFAULT now64(6)
)
ENGINE = MergeTree
ORDER BY (consumer_group, topic, partition, target_table, recorded_at)
COMMENT 'Offset range of every loader insert per group/topic/partition/table: a before row, then an after row once ClickHouse acknowledged it';

-- Columns are qualified (o.) inside the aggregates because the output aliases reuse their names.
CREATE VIEW IF NOT EXISTS tapehouse.loader_offsets_latest AS
SELECT
    o.consumer_group                                                        AS consumer_group,
    o.topic                                                                 AS topic,
    o.partition                                                             AS partition,
    o.target_table                                                          AS target_table,
    argMax(o.min_offset, (o.recorded_at, o.max_offset, o.state = 'after'))  AS min_offset,
    argMax(o.max_offset, (o.recorded_at, o.max_offset, o.state = 'after'))  AS max_offset,
    argMax(o.row_count, (o.recorded_at, o.max_offset, o.state = 'after'))   AS row_count,
    argMax(o.dedup_token, (o.recorded_at, o.max_offset, o.state = 'after')) AS dedup_token,
    argMax(o.state, (o.recorded_at, o.max_offset, o.state = 'after'))       AS state,
    max(o.recorded_at)                                                      AS recorded_at
FROM tapehouse.loader_offsets AS o
GROUP BY o.consumer_group, o.topic, o.partition, o.target_table;

CREATE TABLE IF NOT EXISTS tapehouse.sync_checkpoints
(
    job             LowCardinality(String),
    scope           String                      DEFAULT '',
    run_id          String,
    status          LowCardinality(String),
    cursor          String                      DEFAULT '',
    watermark       Nullable(DateTime64(6, 'UTC')),
    pages           UInt32                      DEFAULT 0,
    records         UInt64                      DEFAULT 0,
    error           String                      DEFAULT '',
    updated_at      DateTime64(6, 'UTC')        DEFAULT now64(6)
)
ENGINE = MergeTree
ORDER BY (job, scope, updated_at)
COMMENT 'Progress of each sync job run: where to resume (cursor, watermark) and how it ended';

CREATE VIEW IF NOT EXISTS tapehouse.sync_checkpoints_latest AS
SELECT
    c.job                             AS job,
    c.scope                           AS scope,
    argMax(c.run_id, c.updated_at)    AS run_id,
    argMax(c.status, c.updated_at)    AS status,
    argMax(c.cursor, c.updated_at)    AS cursor,
    argMax(c.watermark, c.updated_at) AS watermark,
    argMax(c.pages, c.updated_at)     AS pages,
    argMax(c.records, c.updated_at)   AS records,
    argMax(c.error, c.updated_at)     AS error,
    max(c.updated_at)                 AS updated_at
FROM tapehouse.sync_checkpoints AS c
GROUP BY c.job, c.scope;
