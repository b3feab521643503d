-- The two price feeds of the interface (§4.2 "Streams": SSE /api/v1/prices/stream and
-- /api/v1/prices/oracle-pro/stream), one row per price event, one table per feed. The interface
-- keeps no price history: what capture did not receive is gone, and capture_gaps says when
-- (streams `prices` and `oracle_pro`; reason `endpoint_not_offered` where the deployment has no feed).
-- price_micro: the price in micro-units (half-even at the sixth decimal when the feed sent more);
-- price_text: the price exactly as sent. event_id: the SSE event's `id:` on our
-- connection connection_id (a new connection numbers afresh). Sorted by symbol then time: "BTC over this period".

CREATE TABLE IF NOT EXISTS tapehouse.prices
(
    symbol          LowCardinality(String),
    price_micro     Int64                   CODEC(Delta, ZSTD(1)),
    price_text      String                  DEFAULT '',
    observed_at     DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1)),
    source          LowCardinality(String)  DEFAULT '',
    event_id        String                  DEFAULT '',
    connection_id   String                  DEFAULT '',
    _topic          LowCardinality(String),
    _partition      UInt32,
    _offset         UInt64                  CODEC(Delta, ZSTD(1)),
    _index          UInt32                  DEFAULT 0,
    _received_at    DateTime64(6, 'UTC')    CODEC(Delta, ZSTD(1)),
    _raw            String                  DEFAULT '' CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(observed_at)
ORDER BY (symbol, observed_at, _received_at)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Price feed /api/v1/prices/stream, one row per price event';

-- The oracle-pro feed: the same columns, engine and sorting (AS copies them).
CREATE TABLE IF NOT EXISTS tapehouse.oracle_pro_prices AS tapehouse.prices
COMMENT 'Price feed /api/v1/prices/oracle-pro/stream, one row per price event';
