-- Typed columns for fields that sat only in _raw (issue 22, point 4), and the bookkeeping of
-- `tapehouse rederive`, which fills them for the rows stored before (src/load/rederive).
--
-- market_status: what each lifecycle kind carries (the simulator's README, "market_status kinds";
-- the interface names the kinds, §6.2, not their fields).
ALTER TABLE tapehouse.market_status ADD COLUMN IF NOT EXISTS proposed_token_id String DEFAULT '' AFTER new_token_ids;

ALTER TABLE tapehouse.market_status ADD COLUMN IF NOT EXISTS proposed_outcome String DEFAULT '' AFTER proposed_token_id;

ALTER TABLE tapehouse.market_status ADD COLUMN IF NOT EXISTS proposal_round UInt16 DEFAULT 0 AFTER proposed_outcome;

ALTER TABLE tapehouse.market_status ADD COLUMN IF NOT EXISTS winning_outcome String DEFAULT '' AFTER proposal_round;

ALTER TABLE tapehouse.market_status ADD COLUMN IF NOT EXISTS payout_outcomes Array(String) DEFAULT [] AFTER winning_outcome;

ALTER TABLE tapehouse.market_status ADD COLUMN IF NOT EXISTS resolution LowCardinality(String) DEFAULT '' AFTER payout_outcomes;

ALTER TABLE tapehouse.market_status ADD COLUMN IF NOT EXISTS redeemed_positions Nullable(UInt32) AFTER resolution;

ALTER TABLE tapehouse.market_status ADD COLUMN IF NOT EXISTS replacement_market_id String DEFAULT '' AFTER redeemed_positions;

ALTER TABLE tapehouse.market_status ADD COLUMN IF NOT EXISTS replacement_condition_id String DEFAULT '' AFTER replacement_market_id;

ALTER TABLE tapehouse.market_status ADD COLUMN IF NOT EXISTS replacement_slug String DEFAULT '' AFTER replacement_condition_id;

ALTER TABLE tapehouse.market_status ADD COLUMN IF NOT EXISTS replacement_token_ids Array(String) DEFAULT [] AFTER replacement_slug;

ALTER TABLE tapehouse.market_status ADD COLUMN IF NOT EXISTS previous_market_id String DEFAULT '' AFTER replacement_token_ids;

ALTER TABLE tapehouse.market_status ADD COLUMN IF NOT EXISTS previous_condition_id String DEFAULT '' AFTER previous_market_id;

ALTER TABLE tapehouse.market_status ADD COLUMN IF NOT EXISTS opens_at Nullable(DateTime64(3, 'UTC')) AFTER previous_condition_id;

ALTER TABLE tapehouse.market_status ADD COLUMN IF NOT EXISTS closes_at Nullable(DateTime64(3, 'UTC')) AFTER opens_at;

-- trades: the market of the fill, as the trades channel sends it.
ALTER TABLE tapehouse.trades ADD COLUMN IF NOT EXISTS market_id String DEFAULT '' AFTER condition_id;

-- account_events: the amounts of position, redemption, fill and collateral frames.
ALTER TABLE tapehouse.account_events ADD COLUMN IF NOT EXISTS shares_micro Nullable(Int64) AFTER reason;

ALTER TABLE tapehouse.account_events ADD COLUMN IF NOT EXISTS price_micro Nullable(Int64) AFTER shares_micro;

ALTER TABLE tapehouse.account_events ADD COLUMN IF NOT EXISTS resolution_price_micro Nullable(Int64) AFTER price_micro;

ALTER TABLE tapehouse.account_events ADD COLUMN IF NOT EXISTS payout_micro Nullable(Int64) AFTER resolution_price_micro;

ALTER TABLE tapehouse.account_events ADD COLUMN IF NOT EXISTS collateral_micro Nullable(Int64) AFTER payout_micro;

-- markets (and the store behind markets_latest, which copies them): the display fields people
-- filter a catalogue on (§2.9 display).
ALTER TABLE tapehouse.markets ADD COLUMN IF NOT EXISTS resolution_criteria String DEFAULT '' AFTER lp_min_shares_micro;

ALTER TABLE tapehouse.markets ADD COLUMN IF NOT EXISTS reference_price_micro Nullable(Int64) AFTER resolution_criteria;

ALTER TABLE tapehouse.markets ADD COLUMN IF NOT EXISTS currency LowCardinality(String) DEFAULT '' AFTER reference_price_micro;

ALTER TABLE tapehouse.markets ADD COLUMN IF NOT EXISTS reference_at Nullable(DateTime64(3, 'UTC')) AFTER currency;

ALTER TABLE tapehouse.markets ADD COLUMN IF NOT EXISTS observe_at Nullable(DateTime64(3, 'UTC')) AFTER reference_at;

ALTER TABLE tapehouse.markets ADD COLUMN IF NOT EXISTS cadence_seconds Nullable(UInt32) AFTER observe_at;

ALTER TABLE tapehouse.markets ADD COLUMN IF NOT EXISTS band_index Nullable(Int32) AFTER cadence_seconds;

ALTER TABLE tapehouse.markets ADD COLUMN IF NOT EXISTS band_lower_micro Nullable(Int64) AFTER band_index;

ALTER TABLE tapehouse.markets ADD COLUMN IF NOT EXISTS band_upper_micro Nullable(Int64) AFTER band_lower_micro;

ALTER TABLE tapehouse.markets ADD COLUMN IF NOT EXISTS band_label String DEFAULT '' AFTER band_upper_micro;

ALTER TABLE tapehouse.markets ADD COLUMN IF NOT EXISTS oracle_feed_id String DEFAULT '' AFTER band_label;

ALTER TABLE tapehouse.markets ADD COLUMN IF NOT EXISTS oracle_benchmark_symbol String DEFAULT '' AFTER oracle_feed_id;

ALTER TABLE tapehouse.markets ADD COLUMN IF NOT EXISTS oracle_pro_symbol String DEFAULT '' AFTER oracle_benchmark_symbol;

ALTER TABLE tapehouse.markets ADD COLUMN IF NOT EXISTS charting_symbol String DEFAULT '' AFTER oracle_pro_symbol;

ALTER TABLE tapehouse.markets_latest_store ADD COLUMN IF NOT EXISTS resolution_criteria String DEFAULT '' AFTER lp_min_shares_micro;

ALTER TABLE tapehouse.markets_latest_store ADD COLUMN IF NOT EXISTS reference_price_micro Nullable(Int64) AFTER resolution_criteria;

ALTER TABLE tapehouse.markets_latest_store ADD COLUMN IF NOT EXISTS currency LowCardinality(String) DEFAULT '' AFTER reference_price_micro;

ALTER TABLE tapehouse.markets_latest_store ADD COLUMN IF NOT EXISTS reference_at Nullable(DateTime64(3, 'UTC')) AFTER currency;

ALTER TABLE tapehouse.markets_latest_store ADD COLUMN IF NOT EXISTS observe_at Nullable(DateTime64(3, 'UTC')) AFTER reference_at;

ALTER TABLE tapehouse.markets_latest_store ADD COLUMN IF NOT EXISTS cadence_seconds Nullable(UInt32) AFTER observe_at;

ALTER TABLE tapehouse.markets_latest_store ADD COLUMN IF NOT EXISTS band_index Nullable(Int32) AFTER cadence_seconds;

ALTER TABLE tapehouse.markets_latest_store ADD COLUMN IF NOT EXISTS band_lower_micro Nullable(Int64) AFTER band_index;

ALTER TABLE tapehouse.markets_latest_store ADD COLUMN IF NOT EXISTS band_upper_micro Nullable(Int64) AFTER band_lower_micro;

ALTER TABLE tapehouse.markets_latest_store ADD COLUMN IF NOT EXISTS band_label String DEFAULT '' AFTER band_upper_micro;

ALTER TABLE tapehouse.markets_latest_store ADD COLUMN IF NOT EXISTS oracle_feed_id String DEFAULT '' AFTER band_label;

ALTER TABLE tapehouse.markets_latest_store ADD COLUMN IF NOT EXISTS oracle_benchmark_symbol String DEFAULT '' AFTER oracle_feed_id;

ALTER TABLE tapehouse.markets_latest_store ADD COLUMN IF NOT EXISTS oracle_pro_symbol String DEFAULT '' AFTER oracle_benchmark_symbol;

ALTER TABLE tapehouse.markets_latest_store ADD COLUMN IF NOT EXISTS charting_symbol String DEFAULT '' AFTER oracle_pro_symbol;

-- A view's `SELECT *` is expanded when the view is created: it shows added columns only once made again.
CREATE OR REPLACE VIEW tapehouse.markets_latest AS
SELECT * FROM tapehouse.markets_latest_store FINAL;

-- What `tapehouse rederive` has to do, and what it did. A migration that adds columns asks for its
-- tables here; `tapehouse run` (before its loaders start) and `tapehouse rederive` do what is
-- asked, `tapehouse migrate` says what is pending.
CREATE TABLE IF NOT EXISTS tapehouse.rederive_requests
(
    table_name      LowCardinality(String),
    requested_by    String,
    requested_at    DateTime64(3, 'UTC')        DEFAULT now64(3)
)
ENGINE = MergeTree
ORDER BY (table_name, requested_at)
COMMENT 'Tables whose rows a migration wants re-derived from _raw (by tapehouse rederive or run)';

CREATE TABLE IF NOT EXISTS tapehouse.rederive_progress
(
    run_id          String,
    table_name      LowCardinality(String),
    since           DateTime64(3, 'UTC'),
    partition_id    String,
    rows_before     UInt64                      DEFAULT 0,
    rows_rederived  UInt64                      DEFAULT 0,
    rows_failed     UInt64                      DEFAULT 0,
    rows_after      UInt64                      DEFAULT 0,
    done_at         DateTime64(3, 'UTC')        DEFAULT now64(3)
)
ENGINE = MergeTree
ORDER BY (table_name, run_id, partition_id)
COMMENT 'Partitions a rederive run replaced (partition_id \'\' = the run finished): a run interrupted resumes here';

INSERT INTO tapehouse.rederive_requests (table_name, requested_by)
VALUES ('market_status', '0136_typed_fields'), ('trades', '0136_typed_fields'), ('account_events', '0136_typed_fields'), ('markets', '0136_typed_fields');
