-- Books in SQL: a token's order book at an instant, and sampled at a fixed interval, rebuilt as
-- `tapehouse book` rebuilds it (src/capture/books/history.ts): the base is the snapshot with the
-- highest (sequence, snapshot_at) at or before the instant, and on it every level change after that
-- sequence whose changed_at is at or before the instant, the highest sequence per level winning
-- (size 0 removes the level). Both are parameterized views:
--   SELECT * FROM tapehouse.book_at(token = '…', at = '2026-12-02 05:22:42.000', depth = 10)
--   SELECT * FROM tapehouse.book_samples(token = '…', from = '…', to = '…', interval_ms = 1000, depth = 25)
-- Times are UTC text ('YYYY-MM-DD hh:mm:ss.sss' or ISO 8601 with Z). token = '' in book_samples
-- means every token, in one query.
--
-- Sampling without a join per instant: the base of every sample is an ASOF join on the running
-- best snapshot, and the level sizes an ASOF join per (token, side, price) on the running highest
-- (sequence, size) of that level's changes. A level's latest change by sequence up to an instant is
-- taken when its sequence is above the base's; were it not, no change of that level after the base
-- is at or before the instant, so the snapshot's size stands — exactly the CLI's replay.

CREATE VIEW IF NOT EXISTS tapehouse.book_samples AS
WITH
    toUnixTimestamp64Milli(parseDateTime64BestEffort({from:String}, 3, 'UTC')) AS from_ms,
    toUnixTimestamp64Milli(parseDateTime64BestEffort({to:String}, 3, 'UTC')) AS to_ms,
    bests AS
    (
        SELECT token_id, snapshot_at,
               max(b) OVER (PARTITION BY token_id ORDER BY snapshot_at ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS base
        FROM
        (
            SELECT token_id, snapshot_at,
                   max((sequence, snapshot_at, bid_prices_micro, bid_sizes_micro, ask_prices_micro, ask_sizes_micro)) AS b
            FROM tapehouse.book_snapshots
            WHERE ({token:String} = '' OR token_id = {token:String}) AND snapshot_at <= fromUnixTimestamp64Milli(to_ms, 'UTC')
            GROUP BY token_id, snapshot_at
        )
    ),
    samples AS
    (
        SELECT s.token_id AS token_id, s.sampled_at AS sampled_at, b.base AS base
        FROM
        (
            SELECT token_id, fromUnixTimestamp64Milli(from_ms + k * {interval_ms:UInt32}, 'UTC') AS sampled_at
            FROM (SELECT DISTINCT token_id FROM bests)
            ARRAY JOIN range(0, toUInt64(intDiv(to_ms - from_ms, {interval_ms:UInt32}) + 1)) AS k
        ) AS s
        ASOF INNER JOIN bests AS b ON s.token_id = b.token_id AND b.snapshot_at <= s.sampled_at
    ),
    changes AS
    (
        SELECT token_id, lower(side) = 'bid' AS is_bid, price_micro, changed_at,
               max(c) OVER (PARTITION BY token_id, is_bid, price_micro ORDER BY changed_at ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS last
        FROM
        (
            SELECT token_id, side, price_micro, changed_at, max((sequence, size_micro, changed_at)) AS c
            FROM tapehouse.book_changes
            WHERE ({token:String} = '' OR token_id = {token:String}) AND changed_at <= fromUnixTimestamp64Milli(to_ms, 'UTC')
            GROUP BY token_id, side, price_micro, changed_at
        )
    ),
    candidates AS
    (
        SELECT s.token_id AS token_id, s.sampled_at AS sampled_at, s.base.1 AS base_sequence, l.is_bid AS is_bid, l.price_micro AS price_micro, c.last AS last
        FROM samples AS s
        INNER JOIN (SELECT DISTINCT token_id, is_bid, price_micro FROM changes) AS l ON l.token_id = s.token_id
        ASOF INNER JOIN changes AS c ON c.token_id = l.token_id AND c.is_bid = l.is_bid AND c.price_micro = l.price_micro AND c.changed_at <= s.sampled_at
        WHERE c.last.1 > s.base.1
    ),
    levels AS
    (
        SELECT token_id, sampled_at, is_bid, price_micro, argMax(size_micro, from_change) AS size_micro
        FROM
        (
            SELECT token_id, sampled_at, 1 AS is_bid, level.1 AS price_micro, level.2 AS size_micro, 0 AS from_change
            FROM samples ARRAY JOIN arrayZip(base.3, base.4) AS level
            UNION ALL
            SELECT token_id, sampled_at, 0 AS is_bid, level.1 AS price_micro, level.2 AS size_micro, 0 AS from_change
            FROM samples ARRAY JOIN arrayZip(base.5, base.6) AS level
            UNION ALL
            SELECT token_id, sampled_at, toUInt8(is_bid), price_micro, last.2 AS size_micro, 1 AS from_change FROM candidates
        )
        GROUP BY token_id, sampled_at, is_bid, price_micro
        HAVING size_micro != 0
    ),
    stamps AS
    (
        SELECT s.token_id AS token_id, s.sampled_at AS sampled_at,
               if(max(c.last.1) > s.base.1, max(c.last.1), s.base.1) AS sequence,
               if(max(c.last.1) > s.base.1, argMax(c.last.3, c.last.1), s.base.2) AS as_of
        FROM samples AS s
        LEFT JOIN candidates AS c ON c.token_id = s.token_id AND c.sampled_at = s.sampled_at
        GROUP BY s.token_id, s.sampled_at, s.base
    )
SELECT token_id, sampled_at, if(is_bid, 'bid', 'ask') AS side,
       row_number() OVER (PARTITION BY token_id, sampled_at, is_bid ORDER BY if(is_bid, -price_micro, price_micro)) AS level,
       price_micro, size_micro, as_of, sequence
FROM levels INNER JOIN stamps USING (token_id, sampled_at)
QUALIFY level <= {depth:UInt32}
ORDER BY token_id, sampled_at, is_bid DESC, level;

CREATE VIEW IF NOT EXISTS tapehouse.book_at AS
SELECT token_id, side, level, price_micro, size_micro, as_of, sequence
FROM tapehouse.book_samples(token = {token:String}, from = {at:String}, to = {at:String}, interval_ms = 1, depth = {depth:UInt32});
