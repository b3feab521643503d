-- What the loaders need to resume exactly once, on Kafka and on the embedded bus.
--
-- loader_offsets gains the bus epoch (offsets are only meaningful within one: '' on Kafka, whose
-- offsets are durable; a fresh id for every process run of the embedded bus, whose offsets start
-- again at 0) and the newest receive time stored by each batch (where a recorded bus gap starts).
-- bus_coverage keeps, for the embedded bus, each run's start, how far each partition is known to be
-- stored, and how the run ended, so that what a killed process had not stored becomes a capture gap.

ALTER TABLE tapehouse.loader_offsets ADD COLUMN IF NOT EXISTS bus_epoch String DEFAULT '' AFTER consumer_group;

ALTER TABLE tapehouse.loader_offsets ADD COLUMN IF NOT EXISTS max_received_at DateTime64(6, 'UTC') DEFAULT 0 AFTER row_count;

CREATE OR REPLACE VIEW tapehouse.loader_offsets_latest AS
SELECT
    o.consumer_group                                                            AS consumer_group,
    o.bus_epoch                                                                 AS bus_epoch,
    o.topic                                                                     AS topic,
    o.partition                                                                 AS partition,
    o.target_table                                                              AS target_table,
    argMax(o.min_offset, (o.max_offset, o.state = 'after', o.recorded_at))      AS min_offset,
    argMax(o.max_offset, (o.max_offset, o.state = 'after', o.recorded_at))      AS max_offset,
    argMax(o.row_count, (o.max_offset, o.state = 'after', o.recorded_at))       AS row_count,
    argMax(o.max_received_at, (o.max_offset, o.state = 'after', o.recorded_at)) AS max_received_at,
    argMax(o.dedup_token, (o.max_offset, o.state = 'after', o.recorded_at))     AS dedup_token,
    argMax(o.state, (o.max_offset, o.state = 'after', o.recorded_at))           AS state,
    max(o.recorded_at)                                                          AS recorded_at
FROM tapehouse.loader_offsets AS o
GROUP BY o.consumer_group, o.bus_epoch, o.topic, o.partition, o.target_table;

CREATE TABLE IF NOT EXISTS tapehouse.bus_coverage
(
    consumer_group  LowCardinality(String),
    bus_epoch       String,
    topic           LowCardinality(String)      DEFAULT '',
    partition       UInt32                      DEFAULT 0,
    state           LowCardinality(String),
    covered_until   DateTime64(6, 'UTC'),
    recorded_at     DateTime64(6, 'UTC')        DEFAULT now64(6)
)
ENGINE = MergeTree
ORDER BY (consumer_group, bus_epoch, topic, partition, recorded_at)
COMMENT 'Embedded bus only: each run (bus epoch) of a loader group, how far each partition is known stored, and how the run ended';
