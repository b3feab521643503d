-- Names that say what a table holds (issue 37, point 6). `orders` and `positions` were histories
-- (one row per observed state, per read) while `fills` and `activities` were latest views (each
-- fill, each activity once): a reader could not tell from the name. Now, for the account's four
-- entities, a history is `<entity>_observations` and the newest state is `<entity>s_latest`:
--
--   order_observations     (was the table orders)       orders_latest
--   fill_observations      (unchanged)                  fills_latest
--   activity_observations  (unchanged)                  activities_latest
--   position_observations  (was the table positions)    positions_latest, positions_as_of(at = …)
--
-- The old names stay for one release as views that mean what they meant: `orders` and `positions`
-- the histories, `fills` and `activities` the latest states (0013). The loaders write the new
-- tables. RENAME keeps the rows and the parts; the materialized view that read `orders` is made
-- again on the new name (a view's query names its table), and so are the positions views.

-- only if: SELECT count() = 1 FROM system.tables WHERE database = 'tapehouse' AND name = 'orders' AND engine = 'MergeTree'
RENAME TABLE tapehouse.orders TO tapehouse.order_observations;

-- only if: SELECT count() = 1 FROM system.tables WHERE database = 'tapehouse' AND name = 'positions' AND engine = 'MergeTree'
RENAME TABLE tapehouse.positions TO tapehouse.position_observations;

ALTER TABLE tapehouse.order_observations MODIFY COMMENT 'The account''s orders, one row per observed state (history; newest per order: orders_latest)';

ALTER TABLE tapehouse.position_observations MODIFY COMMENT 'Positions as read: one row per position of an anchor read and per change of a chain read (history; an instant: positions_as_of, the newest: positions_latest)';

DROP VIEW IF EXISTS tapehouse.orders_by_source_mv;

CREATE MATERIALIZED VIEW IF NOT EXISTS tapehouse.orders_by_source_mv TO tapehouse.orders_by_source
AS SELECT * FROM tapehouse.order_observations;

-- The old names, for one release.
CREATE VIEW IF NOT EXISTS tapehouse.orders
COMMENT 'Deprecated name of order_observations (removed in the next release)'
AS SELECT * FROM tapehouse.order_observations;

CREATE VIEW IF NOT EXISTS tapehouse.positions
COMMENT 'Deprecated name of position_observations (removed in the next release)'
AS SELECT * FROM tapehouse.position_observations;

CREATE OR REPLACE VIEW tapehouse.fills
COMMENT 'Deprecated name of fills_latest (removed in the next release)'
AS SELECT * FROM tapehouse.fills_latest;

CREATE OR REPLACE VIEW tapehouse.activities
COMMENT 'Deprecated name of activities_latest (removed in the next release)'
AS SELECT * FROM tapehouse.activities_latest;

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
                FROM tapehouse.position_observations
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
    FROM tapehouse.position_observations AS p
    INNER JOIN reads AS r ON p.account = r.account
    WHERE (p.account, p.as_of, p._topic, p._partition, p._offset) IN (SELECT account, read_as_of, read_topic, read_partition, read_offset FROM reads WHERE read_anchor)
      AND p.as_of = r.read_as_of AND p._topic = r.read_topic AND p._partition = r.read_partition AND p._offset = r.read_offset
    UNION ALL
    SELECT * FROM (
        SELECT p.*, r.read_as_of AS read_as_of
        FROM tapehouse.position_observations AS p
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
