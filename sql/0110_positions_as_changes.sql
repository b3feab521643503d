-- Positions stored as changes. The portfolio stream sends the whole positions list about twice a
-- second (140-170 positions on the simulator at rate 20), most of it unchanged: positions were 60 %
-- of all rows. Capture now publishes a chain per stream connection (src/capture/position-chain.ts):
-- an ANCHOR read holding every position (a connection's first read, after a missed frame or an
-- unusable read, and at least once a minute), then CHANGE reads holding only the positions that
-- changed (whole) and a `removed` row per token no longer listed. REST reads stay whole (anchors
-- of no chain). positions_latest gives what it gave before, and positions_as_of(at) gives any
-- instant's positions the same way.
--
-- position_snapshots: `anchor` (the read holds every position), `change_count` (positions rows the
-- read itself stores: all of them for an anchor), `chain` (the chain's id, '' for a whole read of
-- no chain) and `chain_start` (its anchor's as_of). Rows stored before this migration are whole
-- reads: the defaults say so.
-- positions: `chain` as above, `removed` (the token left the list at this read; no shares).

ALTER TABLE tapehouse.position_snapshots ADD COLUMN IF NOT EXISTS anchor Bool DEFAULT true AFTER position_count;

ALTER TABLE tapehouse.position_snapshots ADD COLUMN IF NOT EXISTS change_count UInt32 DEFAULT position_count AFTER anchor;

ALTER TABLE tapehouse.position_snapshots ADD COLUMN IF NOT EXISTS chain String DEFAULT '' AFTER change_count;

ALTER TABLE tapehouse.position_snapshots ADD COLUMN IF NOT EXISTS chain_start DateTime64(3, 'UTC') DEFAULT as_of AFTER chain;

ALTER TABLE tapehouse.positions ADD COLUMN IF NOT EXISTS removed Bool DEFAULT false AFTER to_win_micro;

ALTER TABLE tapehouse.positions ADD COLUMN IF NOT EXISTS chain String DEFAULT '' AFTER removed;

-- The positions of one chosen read per account (`reads`: account, read_as_of, read_topic,
-- read_partition, read_offset, read_anchor, read_chain, read_chain_start), as of that read: an
-- anchor's own rows, or for a change read the newest row of each token in its chain up to it (by
-- as_of, then bus position) unless that row says the token is gone. Every row shows the read's
-- as_of, as the whole read's rows did.
--
-- Which read: each account's newest usable read (empty unavailable_exchanges) whose own rows are
-- all stored (as many positions rows as its change_count: the loader inserts a read's snapshot row
-- and its positions in two inserts; until both are in, the read before stands), among its three
-- newest (0102), at or before the instant asked for:
--   SELECT * FROM tapehouse.positions_as_of(at = '2026-03-02 12:00:00')

CREATE OR REPLACE VIEW tapehouse.positions_as_of AS
WITH
    candidates AS (
        SELECT account, as_of, _topic, _partition, _offset, _received_at, change_count, anchor, chain, chain_start
        FROM tapehouse.position_snapshots
        WHERE empty(unavailable_exchanges) AND as_of <= {at:DateTime64(3, 'UTC')}
        ORDER BY account, as_of DESC, _received_at DESC, _offset DESC
        LIMIT 3 BY account
    ),
    reads AS (
        SELECT account, newest.1 AS read_as_of, newest.2 AS read_topic, newest.3 AS read_partition, newest.4 AS read_offset,
               newest.5 AS read_anchor, newest.6 AS read_chain, newest.7 AS read_chain_start
        FROM (
            SELECT c.account AS account,
                   argMax((c.as_of, c._topic, c._partition, c._offset, c.anchor, c.chain, c.chain_start), (c.as_of, c._received_at, c._offset)) AS newest
            FROM candidates AS c
            LEFT JOIN (
                SELECT account, as_of, _topic, _partition, _offset, count() AS stored
                FROM tapehouse.positions
                WHERE (account, as_of, _topic, _partition, _offset) IN (SELECT account, as_of, _topic, _partition, _offset FROM candidates)
                GROUP BY account, as_of, _topic, _partition, _offset
            ) AS p ON p.account = c.account AND p.as_of = c.as_of AND p._topic = c._topic AND p._partition = c._partition AND p._offset = c._offset
            WHERE p.stored = c.change_count
            GROUP BY c.account
        )
    )
SELECT * EXCEPT (read_as_of) REPLACE (read_as_of AS as_of)
FROM (
    SELECT p.*, r.read_as_of AS read_as_of
    FROM tapehouse.positions AS p
    INNER JOIN reads AS r ON p.account = r.account
    WHERE (p.account, p.as_of, p._topic, p._partition, p._offset) IN (SELECT account, read_as_of, read_topic, read_partition, read_offset FROM reads WHERE read_anchor)
      AND p.as_of = r.read_as_of AND p._topic = r.read_topic AND p._partition = r.read_partition AND p._offset = r.read_offset
    UNION ALL
    SELECT * FROM (
        SELECT p.*, r.read_as_of AS read_as_of
        FROM tapehouse.positions AS p
        INNER JOIN reads AS r ON p.account = r.account AND p.chain = r.read_chain
        WHERE (p.account, p.chain) IN (SELECT account, read_chain FROM reads WHERE NOT read_anchor)
          AND p.as_of >= (SELECT min(read_chain_start) FROM reads WHERE NOT read_anchor)
          AND p.as_of >= r.read_chain_start AND (p.as_of, p._offset) <= (r.read_as_of, r.read_offset)
        ORDER BY p.account, p.token_id, p.as_of DESC, p._offset DESC
        LIMIT 1 BY p.account, p.token_id
    )
    WHERE NOT removed
);

-- The newest positions: as of the end of DateTime64(3)'s range.
CREATE OR REPLACE VIEW tapehouse.positions_latest AS
SELECT * FROM tapehouse.positions_as_of(at = '2299-12-31 23:59:59.999');
