#!/usr/bin/env bash
# Runs every example of docs/research.md on a warehouse a short `tapehouse run` fills.
# Python: PYTHON (default .cache/research-venv/bin/python) with pyarrow, pandas and duckdb.
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON="${PYTHON:-$PWD/.cache/research-venv/bin/python}"
"$PYTHON" -c "import pyarrow, pandas, duckdb" 2>/dev/null || {
  python3 -m venv .cache/research-venv && PYTHON="$PWD/.cache/research-venv/bin/python"
  "$PYTHON" -m pip install -q pyarrow pandas duckdb
}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
th() { node bin/tapehouse.js "$@"; }
th run --data-dir "$work/data" --http-port 0 --status off --rate 40 --duration 20s >/dev/null 2>&1
day="$(th sql --data-dir "$work/data" --format csv "SELECT toString(toDate(min(executed_at))) FROM trades" | tail -1 | tr -d '"')"
next="$(date -u -d "$day + 1 day" +%F)"
cd "$work"
node "$OLDPWD/bin/tapehouse.js" export --data-dir data --from "$day" --to "$next" --out ./history --snapshot-interval 1s --snapshot-depth 10 2>/dev/null
# Each python block of the page, as written.
awk '/^```python$/{on=1; n++; next} /^```$/{on=0} on{print > ("block" n ".py")}' "$OLDPWD/docs/research.md"
for block in block*.py; do
  echo "--- $block"
  "$PYTHON" "$block"
done
cd "$OLDPWD"
token="$(th sql --data-dir "$work/data" --format csv "SELECT token_id FROM book_changes GROUP BY token_id ORDER BY count() DESC LIMIT 1" | tail -1 | tr -d '"')"
at="$(th sql --data-dir "$work/data" --format csv "SELECT toString(max(changed_at)) FROM book_changes WHERE token_id = '$token'" | tail -1 | tr -d '"')"
from="$(th sql --data-dir "$work/data" --format csv "SELECT toString(min(changed_at) + INTERVAL 2 SECOND) FROM book_changes WHERE token_id = '$token'" | tail -1 | tr -d '"')"
# The SQL examples, with the placeholders filled; the book must equal tapehouse book's.
sed -n '/^```sh$/,/^```$/p' docs/research.md | sed -n '/tapehouse sql/,/GROUP BY sampled_at/p' >"$work/sql.sh"
sed -i "s/<token>/$token/g; s/<time>/$at/g; s/<from>/$from/g; s/<to>/$at/g; s/^tapehouse sql /th sql --data-dir \"\$work\/data\" --format csv /" "$work/sql.sh"
echo "--- sql"
# shellcheck disable=SC1091
source "$work/sql.sh" | tee "$work/sql.out"
sql_bids="$(grep -c '^"bid"' "$work/sql.out" || true)"
cli_bids="$(th book "$token" --data-dir "$work/data" --at "${at/ /T}Z" --depth 5 | grep -c '^bid' || true)"
[ "$sql_bids" = "$cli_bids" ] || { echo "book_at gave $sql_bids bid levels, tapehouse book $cli_bids"; exit 1; }
echo "research examples: all ran"
