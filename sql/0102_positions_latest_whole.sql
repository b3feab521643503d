-- positions_latest shows the newest usable positions read *whose rows are all stored*. A read is one
-- bus record mapped to a position_snapshots row and its positions rows, inserted one table after
-- the other: a query between the two saw the newest snapshot with none of its positions, and a
-- dashboard opened on an empty Positions table while the account held a dozen (the portfolio
-- stream sends a read every second, so it happened often). Now a read counts once it holds as many
-- positions rows as its snapshot says (position_count; an empty read holds none); until then the
-- read before it stands. Only each account's three newest usable reads are looked at.

CREATE OR REPLACE VIEW tapehouse.positions_latest AS
WITH candidates AS (
    SELECT account, as_of, _topic, _partition, _offset, _received_at, position_count
    FROM tapehouse.position_snapshots
    WHERE empty(unavailable_exchanges)
    ORDER BY account, as_of DESC, _received_at DESC, _offset DESC
    LIMIT 3 BY account
)
SELECT *
FROM tapehouse.positions
WHERE (account, as_of, _topic, _partition, _offset) IN (
    SELECT account, newest.1, newest.2, newest.3, newest.4
    FROM (
        SELECT c.account AS account,
               argMax((c.as_of, c._topic, c._partition, c._offset), (c.as_of, c._received_at, c._offset)) AS newest
        FROM candidates AS c
        LEFT JOIN (
            SELECT account, as_of, _topic, _partition, _offset, count() AS stored
            FROM tapehouse.positions
            WHERE (account, as_of, _topic, _partition, _offset) IN (SELECT account, as_of, _topic, _partition, _offset FROM candidates)
            GROUP BY account, as_of, _topic, _partition, _offset
        ) AS p ON p.account = c.account AND p.as_of = c.as_of AND p._topic = c._topic AND p._partition = c._partition AND p._offset = c._offset
        WHERE p.stored = c.position_count
        GROUP BY c.account
    )
);
