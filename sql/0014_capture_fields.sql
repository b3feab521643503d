-- Fields of capture's records that had no column: the venue's own book sequence next to capture's
-- per-token one (which orders a token's changes exactly, across reconnects and restarts), why a
-- snapshot was taken, and which stream a data-quality finding came from.

ALTER TABLE tapehouse.book_changes ADD COLUMN IF NOT EXISTS venue_sequence UInt64 DEFAULT 0 CODEC(Delta, ZSTD(1)) AFTER sequence;

ALTER TABLE tapehouse.book_snapshots ADD COLUMN IF NOT EXISTS venue_sequence UInt64 DEFAULT 0 AFTER sequence;

ALTER TABLE tapehouse.book_snapshots ADD COLUMN IF NOT EXISTS reason LowCardinality(String) DEFAULT '' AFTER kind;

ALTER TABLE tapehouse.data_quality ADD COLUMN IF NOT EXISTS stream LowCardinality(String) DEFAULT '' AFTER condition_id;
