-- A loader group belongs to one warehouse (issue 38).
--
-- warehouse_identity names this warehouse: its first row (the earliest) is its id, made by the
-- first loader that starts on it; two made at once are settled by taking the earliest.
-- loader_groups records each loader group this warehouse serves and the topic prefix it reads;
-- the group's own record of its warehouse is kept on Kafka (the register topic __tapehouse_claims).

CREATE TABLE IF NOT EXISTS tapehouse.warehouse_identity
(
    warehouse_id    String,
    created_at      DateTime64(6, 'UTC')        DEFAULT now64(6)
)
ENGINE = MergeTree
ORDER BY (created_at, warehouse_id)
COMMENT 'This warehouse''s id: the earliest row; made by the first loader that starts on it';

CREATE TABLE IF NOT EXISTS tapehouse.loader_groups
(
    consumer_group  LowCardinality(String),
    topic_prefix    String,
    warehouse_id    String,
    loader_id       String,
    recorded_at     DateTime64(6, 'UTC')        DEFAULT now64(6)
)
ENGINE = MergeTree
ORDER BY (consumer_group, recorded_at)
COMMENT 'Each loader group this warehouse serves, with its topic prefix: a row per loader start';
