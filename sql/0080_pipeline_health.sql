-- Periodic samples of the main job's figures (the ones its status line and /metrics show), one
-- row per sample, component, subject and metric. Counters are stored as their increase since the
-- previous sample, so a restart needs no reset handling and sum() over any window is the count in
-- it; gauges as their value. Written by the main job (src/run/pipeline-health.ts), read by
-- dashboards/pipeline-health.json. Samples age out after 90 days.
CREATE TABLE IF NOT EXISTS tapehouse.pipeline_health
(
    sampled_at      DateTime64(3, 'UTC')        CODEC(DoubleDelta, ZSTD(1)),
    component       LowCardinality(String),
    subject         String,
    metric          LowCardinality(String),
    value           Float64                     CODEC(Gorilla, ZSTD(1)),
    interval_ms     UInt32                      DEFAULT 0
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(sampled_at)
ORDER BY (metric, component, subject, sampled_at)
TTL toDateTime(sampled_at) + INTERVAL 90 DAY;
