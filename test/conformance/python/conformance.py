"""clickhouse-connect (pinned in requirements.txt) against a running `tapehouse run`, default
settings: get_client with its start-up probes, query, query_df, server-side parameters with the
hostile strings, and a streamed read. Prints one line per check and ends with the tally line
'N passed, N failed'; exits non-zero when anything failed."""

import json
import os
import sys
import traceback
from urllib.parse import urlparse

import clickhouse_connect

URL = urlparse(os.environ["TAPEHOUSE_CONFORMANCE_URL"])
DIR = os.environ["TAPEHOUSE_CONFORMANCE_DIR"]
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "hostile-strings.json"), encoding="utf-8") as f:
    HOSTILE = json.load(f)

passed, failed = 0, 0


def check(name, fn):
    global passed, failed
    try:
        fn()
        passed += 1
        print(f"ok   {name}")
    except Exception:  # noqa: BLE001 - every failure is reported and counted
        failed += 1
        print(f"FAIL {name}\n{traceback.format_exc()}")


client = None


def connect():
    global client
    # get_client runs the driver's probes: version, time zone, settings it may send.
    client = clickhouse_connect.get_client(host=URL.hostname, port=URL.port, username="default", database="tapehouse")
    assert client.server_version, "no server version"
    assert client.ping()


def query():
    result = client.query("SELECT count() AS n, min(executed_at) AS first FROM trades")
    assert result.column_names == ("n", "first"), result.column_names
    assert result.result_rows[0][0] > 0
    assert result.summary.get("result_rows") == "1", result.summary


def query_df():
    df = client.query_df("SELECT number AS n, toString(number) AS s, toDateTime64(number, 3, 'UTC') AS t FROM numbers(1000)")
    assert list(df.columns) == ["n", "s", "t"], df.columns
    assert len(df) == 1000 and df["n"].sum() == 499500
    assert df["t"].iloc[1].timestamp() == 1.0, df["t"].iloc[1]


def parameters():
    for value in HOSTILE:
        result = client.query(
            "SELECT {s:String} AS s, length({s:String}) AS n, {a:Array(String)} AS a",
            parameters={"s": value, "a": [value, "x"]},
        )
        row = result.result_rows[0]
        assert row == (value, len(value.encode()), [value, "x"]), (value, row)


def streamed():
    rows = 0
    with client.query_row_block_stream("SELECT number, toString(number) FROM numbers(1200000)") as stream:
        for block in stream:
            rows += len(block)
    assert rows == 1200000, rows


def refused():
    try:
        client.command("DROP TABLE tapehouse.trades")
    except Exception as err:  # noqa: BLE001 - the driver's own error type
        assert "READONLY" in str(err), err
        return
    raise AssertionError("DROP TABLE was not refused")


for name, fn in [
    ("get_client and its start-up probes", connect),
    ("query", query),
    ("query_df (pandas)", query_df),
    ("server-side parameters with hostile strings", parameters),
    ("streamed read of 1,200,000 rows (query_row_block_stream)", streamed),
    ("a write is refused (READONLY)", refused),
]:
    if name != "get_client and its start-up probes" and client is None:
        failed += 1
        print(f"FAIL {name}: no client")
        continue
    check(name, fn)

with open(os.path.join(DIR, "tally.tsv"), "a", encoding="utf-8") as tally:
    tally.write(f"clickhouse-connect {clickhouse_connect.__version__}\t{passed + failed}\t{passed}\t\n")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
