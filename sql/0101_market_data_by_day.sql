-- Daily partitions for the market data. Partitioned by month, every small insert of the live
-- stream was merged into the month's part again and again (the engine merges small parts eagerly),
-- each merge leaving the whole previous part behind as an outdated copy until cleanup: 116 copies of
-- the trades part after ten minutes. By day, a merge rewrites at most the day's data, and a day can
-- be dropped, moved or TTL'd whole. (The cleanup settings that remove outdated copies within
-- seconds are applied to every table by `migrate`: src/warehouse/storage-settings.ts.)
--
-- Each table is created again with the new partition key — same columns, codecs, defaults and
-- indexes (CREATE … AS copies them by name) — filled from the old one, and swapped in with EXCHANGE
-- TABLES, which the materialised views reading it follow (a RENAME would leave them on the old
-- table). The `-- only if:` guards make every step safe to run again after an interruption.
--
-- Run it after a clean stop of the loaders: the new tables start with an empty deduplication log,
-- so a batch a killed Kafka loader re-sends for a range it had already inserted would be stored
-- twice (the embedded bus never re-sends a killed run's ranges).

CREATE TABLE IF NOT EXISTS tapehouse.trades__by_day AS tapehouse.trades
ENGINE = MergeTree
PARTITION BY toDate(executed_at)
ORDER BY (token_id, executed_at, sequence, trade_id)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Public trades from the trades channel, one row per trade';

-- only if: SELECT partition_key = 'toYYYYMM(executed_at)' FROM system.tables WHERE database = 'tapehouse' AND name = 'trades'
TRUNCATE TABLE tapehouse.trades__by_day;

-- only if: SELECT partition_key = 'toYYYYMM(executed_at)' FROM system.tables WHERE database = 'tapehouse' AND name = 'trades'
INSERT INTO tapehouse.trades__by_day SELECT * FROM tapehouse.trades;

-- only if: SELECT partition_key = 'toYYYYMM(executed_at)' FROM system.tables WHERE database = 'tapehouse' AND name = 'trades'
EXCHANGE TABLES tapehouse.trades AND tapehouse.trades__by_day;

DROP TABLE IF EXISTS tapehouse.trades__by_day;

CREATE TABLE IF NOT EXISTS tapehouse.book_changes__by_day AS tapehouse.book_changes
ENGINE = MergeTree
PARTITION BY toDate(changed_at)
ORDER BY (token_id, changed_at, sequence, side, price_micro)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Order book level changes, one row per price level whose resting size changed (size 0 = level removed)';

-- only if: SELECT partition_key = 'toYYYYMM(changed_at)' FROM system.tables WHERE database = 'tapehouse' AND name = 'book_changes'
TRUNCATE TABLE tapehouse.book_changes__by_day;

-- only if: SELECT partition_key = 'toYYYYMM(changed_at)' FROM system.tables WHERE database = 'tapehouse' AND name = 'book_changes'
INSERT INTO tapehouse.book_changes__by_day SELECT * FROM tapehouse.book_changes;

-- only if: SELECT partition_key = 'toYYYYMM(changed_at)' FROM system.tables WHERE database = 'tapehouse' AND name = 'book_changes'
EXCHANGE TABLES tapehouse.book_changes AND tapehouse.book_changes__by_day;

DROP TABLE IF EXISTS tapehouse.book_changes__by_day;

CREATE TABLE IF NOT EXISTS tapehouse.book_snapshots__by_day AS tapehouse.book_snapshots
ENGINE = MergeTree
PARTITION BY toDate(snapshot_at)
ORDER BY (token_id, snapshot_at, sequence)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Full order books as observed (stream snapshots, REST recovery and verification), best level first on each side';

-- only if: SELECT partition_key = 'toYYYYMM(snapshot_at)' FROM system.tables WHERE database = 'tapehouse' AND name = 'book_snapshots'
TRUNCATE TABLE tapehouse.book_snapshots__by_day;

-- only if: SELECT partition_key = 'toYYYYMM(snapshot_at)' FROM system.tables WHERE database = 'tapehouse' AND name = 'book_snapshots'
INSERT INTO tapehouse.book_snapshots__by_day SELECT * FROM tapehouse.book_snapshots;

-- only if: SELECT partition_key = 'toYYYYMM(snapshot_at)' FROM system.tables WHERE database = 'tapehouse' AND name = 'book_snapshots'
EXCHANGE TABLES tapehouse.book_snapshots AND tapehouse.book_snapshots__by_day;

DROP TABLE IF EXISTS tapehouse.book_snapshots__by_day;

CREATE TABLE IF NOT EXISTS tapehouse.quotes__by_day AS tapehouse.quotes
ENGINE = MergeTree
PARTITION BY toDate(quoted_at)
ORDER BY (token_id, quoted_at, sequence)
SETTINGS non_replicated_deduplication_window = 10000
COMMENT 'Top of book: best bid and ask per update (best_quote channel, or derived from the full book); NULL = empty side';

-- only if: SELECT partition_key = 'toYYYYMM(quoted_at)' FROM system.tables WHERE database = 'tapehouse' AND name = 'quotes'
TRUNCATE TABLE tapehouse.quotes__by_day;

-- only if: SELECT partition_key = 'toYYYYMM(quoted_at)' FROM system.tables WHERE database = 'tapehouse' AND name = 'quotes'
INSERT INTO tapehouse.quotes__by_day SELECT * FROM tapehouse.quotes;

-- only if: SELECT partition_key = 'toYYYYMM(quoted_at)' FROM system.tables WHERE database = 'tapehouse' AND name = 'quotes'
EXCHANGE TABLES tapehouse.quotes AND tapehouse.quotes__by_day;

DROP TABLE IF EXISTS tapehouse.quotes__by_day;
