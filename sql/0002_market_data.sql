-- Public market data from the market stream (and REST book recovery).
-- Every row carries its bus provenance (_topic, _partition, _offset, _index: the natural key the
-- loaders deduplicate on), its receive time and the bus record's payload (_raw, kept once per
-- record on the row with _index = 0) so a later parser can re-derive what today's mapping drops.
-- Sorted by token then time: the queries people run are "this token over this period".

CREATE TABLE IF NOT EXISTS tapehouse.trades
(
    token_id        String,
    condition_id    String                  DEFAULT '',
    trade_id        String                  DEFAULT '',
    side            LowCardinality(String),
    price_micro     Int64                   CODEC(Delta, ZSTD(1)),
    shares_micro    Int64                   CODEC(T64, ZSTD(1)),
    notional_micro  Int64                   MATERIALIZED toInt64(intDiv(toInt128(price_micro) * shares_micro, 1000000)) CODEC(T64, ZSTD(1)),
    executed_at     DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1)),
    sequence        UInt64                  DEFAULT 0 CODEC(Delta, ZSTD(1)),
    exchange        LowCardinality(String)  DEFAULT '',
    _topic          LowCardinality(String),
    _partition      UInt32,
    _offset         UInt64                  CODEC(Delta, ZSTD(1)),
    _index          UInt32                  DEFAULT 0,
    _received_at    DateTime64(6, 'UTC')    CODEC(Delta, ZSTD(1)),
    _raw            String                  DEFAULT '' CODEC(ZSTD(3)),
    INDEX condition_idx condition_id TYPE bloom_filter(0.01) GRANULARITY 4,
    INDEX executed_at_idx executed_at TYPE minmax GRANULARITY 1
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(executed_at)
ORDER BY (token_id, executed_at, sequence, trade_id)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Public trades from the trades channel, one row per trade';

CREATE TABLE IF NOT EXISTS tapehouse.book_changes
(
    token_id            String,
    condition_id        String                  DEFAULT '',
    side                LowCardinality(String),
    price_micro         Int64                   CODEC(Delta, ZSTD(1)),
    size_micro          Int64                   CODEC(T64, ZSTD(1)),
    previous_size_micro Int64                   DEFAULT 0 CODEC(T64, ZSTD(1)),
    changed_at          DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1)),
    sequence            UInt64                  DEFAULT 0 CODEC(DoubleDelta, ZSTD(1)),
    update_kind         LowCardinality(String)  DEFAULT '',
    _topic              LowCardinality(String),
    _partition          UInt32,
    _offset             UInt64                  CODEC(Delta, ZSTD(1)),
    _index              UInt32                  DEFAULT 0 CODEC(T64, ZSTD(1)),
    _received_at        DateTime64(6, 'UTC')    CODEC(Delta, ZSTD(1)),
    _raw                String                  DEFAULT '' CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(changed_at)
ORDER BY (token_id, changed_at, sequence, side, price_micro)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Order book level changes, one row per price level whose resting size changed (size 0 = level removed)';

CREATE TABLE IF NOT EXISTS tapehouse.book_snapshots
(
    token_id            String,
    condition_id        String                  DEFAULT '',
    snapshot_at         DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1)),
    sequence            UInt64                  DEFAULT 0 CODEC(Delta, ZSTD(1)),
    source              LowCardinality(String),
    kind                LowCardinality(String)  DEFAULT '',
    bid_prices_micro    Array(Int64)            CODEC(ZSTD(3)),
    bid_sizes_micro     Array(Int64)            CODEC(ZSTD(3)),
    ask_prices_micro    Array(Int64)            CODEC(ZSTD(3)),
    ask_sizes_micro     Array(Int64)            CODEC(ZSTD(3)),
    book_hash           String                  DEFAULT '',
    _topic              LowCardinality(String),
    _partition          UInt32,
    _offset             UInt64                  CODEC(Delta, ZSTD(1)),
    _index              UInt32                  DEFAULT 0,
    _received_at        DateTime64(6, 'UTC')    CODEC(Delta, ZSTD(1)),
    _raw                String                  DEFAULT '' CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(snapshot_at)
ORDER BY (token_id, snapshot_at, sequence)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Full order books as observed (stream snapshots, REST recovery and verification), best level first on each side';

CREATE TABLE IF NOT EXISTS tapehouse.quotes
(
    token_id            String,
    condition_id        String                  DEFAULT '',
    quoted_at           DateTime64(3, 'UTC')    CODEC(DoubleDelta, ZSTD(1)),
    sequence            UInt64                  DEFAULT 0 CODEC(Delta, ZSTD(1)),
    best_bid_micro      Nullable(Int64)         CODEC(Delta, ZSTD(1)),
    best_ask_micro      Nullable(Int64)         CODEC(Delta, ZSTD(1)),
    best_bid_size_micro Nullable(Int64)         CODEC(T64, ZSTD(1)),
    best_ask_size_micro Nullable(Int64)         CODEC(T64, ZSTD(1)),
    spread_micro        Nullable(Int64)         ALIAS best_ask_micro - best_bid_micro,
    source              LowCardinality(String),
    _topic              LowCardinality(String),
    _partition          UInt32,
    _offset             UInt64                  CODEC(Delta, ZSTD(1)),
    _index              UInt32                  DEFAULT 0,
    _received_at        DateTime64(6, 'UTC')    CODEC(Delta, ZSTD(1)),
    _raw                String                  DEFAULT '' CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(quoted_at)
ORDER BY (token_id, quoted_at, sequence)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Top of book: best bid and ask per update (best_quote channel, or derived from the full book); NULL = empty side';

CREATE TABLE IF NOT EXISTS tapehouse.market_status
(
    condition_id        String                  DEFAULT '',
    market_id           String                  DEFAULT '',
    event_id            String                  DEFAULT '',
    kind                LowCardinality(String),
    status_at           DateTime64(3, 'UTC'),
    sequence            UInt64                  DEFAULT 0,
    reason              String                  DEFAULT '',
    winning_token_id    String                  DEFAULT '',
    payout_token_ids    Array(String)           DEFAULT [],
    payouts_micro       Array(Int64)            DEFAULT [],
    new_market_id       String                  DEFAULT '',
    new_condition_id    String                  DEFAULT '',
    new_token_ids       Array(String)           DEFAULT [],
    _topic              LowCardinality(String),
    _partition          UInt32,
    _offset             UInt64,
    _index              UInt32                  DEFAULT 0,
    _received_at        DateTime64(6, 'UTC'),
    _raw                String                  DEFAULT '' CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(status_at)
ORDER BY (condition_id, status_at, sequence, kind)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Market lifecycle events from the market_status channel (halted, resumed, proposed, resolved, …); unknown kinds are kept';

CREATE TABLE IF NOT EXISTS tapehouse.capture_gaps
(
    stream                LowCardinality(String),
    channel               LowCardinality(String)  DEFAULT '',
    subject_kind          LowCardinality(String)  DEFAULT '',
    subject               String                  DEFAULT '',
    gap_start             DateTime64(6, 'UTC'),
    gap_end               DateTime64(6, 'UTC'),
    duration_ms           Int64                   ALIAS dateDiff('millisecond', gap_start, gap_end),
    reason                LowCardinality(String),
    recovery              LowCardinality(String)  DEFAULT '',
    last_sequence_before  UInt64                  DEFAULT 0,
    first_sequence_after  UInt64                  DEFAULT 0,
    detail                String                  DEFAULT '',
    _topic                LowCardinality(String),
    _partition            UInt32,
    _offset               UInt64,
    _index                UInt32                  DEFAULT 0,
    _received_at          DateTime64(6, 'UTC'),
    _raw                  String                  DEFAULT '' CODEC(ZSTD(3))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(gap_start)
ORDER BY (stream, channel, subject, gap_start)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Every interval in which a stream or channel was not covered, with exact bounds, reason and whether REST recovered it';
