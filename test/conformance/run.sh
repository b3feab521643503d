#!/usr/bin/env bash
# Client conformance suite: real ClickHouse drivers, each pinned, against one real
# `tapehouse run --http-port 0` (embedded default, built-in simulator):
#   Go      clickhouse-go v2.47.0 as Grafana's ClickHouse data source v4.20.0 uses it (grafana/)
#   Java    clickhouse-jdbc 0.11.0, default settings (jdbc/)
#   Python  clickhouse-connect 1.12.0 (python/)
#   JS      @clickhouse/client as package-lock.json pins it, and the judge of the Go report (*.test.ts)
# It installs what each part needs from the registries (Go module proxy, Maven Central, PyPI; npm
# is the project's own install), builds once into .cache/conformance/ (git-ignored; the Go and
# Maven caches are the tools' own, under $HOME), never skips, and prints a table of figures.
#
#   bash test/conformance/run.sh                     the suite (CI runs it from .ci/run)
#   bash test/conformance/run.sh --write-expansions  remakes grafana-expansions.json (no warehouse)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
CACHE=$ROOT/.cache/conformance
mkdir -p "$CACHE"
started=$(date +%s)
say() { printf '\n--- conformance: %s (%ss)\n' "$*" "$(($(date +%s) - started))"; }
need() { command -v "$1" >/dev/null 2>&1 || { echo "conformance: $1 is missing ($2)" >&2; exit 1; }; }
need go 'Go 1.26: apt-get install golang, or the Go toolchain'
need mvn 'Maven with Java 17: apt-get install maven openjdk-17-jdk-headless'
need javac 'Java 17: apt-get install openjdk-17-jdk-headless'
need python3 'Python 3 with venv'

say "Go: clickhouse-go v2.47.0 (module proxy), build once"
GRAFANA_BIN=$CACHE/grafana-conformance
(cd test/conformance/grafana && go build -o "$GRAFANA_BIN" .)

if [ "${1:-}" = "--write-expansions" ]; then
  npx tsx test/conformance/grafana-plan.ts --fixed --out "$CACHE/fixed-plan.json"
  "$GRAFANA_BIN" -expand-only -plan "$CACHE/fixed-plan.json" -out test/conformance/grafana-expansions.json
  echo "wrote test/conformance/grafana-expansions.json"
  exit 0
fi

say "Java: clickhouse-jdbc 0.11.0 (Maven Central), compile once"
JDBC=$CACHE/jdbc
mkdir -p "$JDBC/classes"
mvn -q -B -f test/conformance/jdbc/pom.xml dependency:build-classpath -Dmdep.outputFile="$JDBC/classpath.txt"
javac -cp "$(cat "$JDBC/classpath.txt")" -d "$JDBC/classes" test/conformance/jdbc/src/main/java/tapehouse/JdbcConformance.java

say "Python: clickhouse-connect 1.12.0 (PyPI)"
VENV=$CACHE/python
if [ ! -x "$VENV/bin/python" ] || ! cmp -s test/conformance/python/requirements.txt "$VENV/requirements.txt"; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check -r test/conformance/python/requirements.txt
  cp test/conformance/python/requirements.txt "$VENV/requirements.txt"
fi

say "the expansion file is what the Go program makes of the fixed plan"
npx tsx test/conformance/grafana-plan.ts --fixed --out "$CACHE/fixed-plan.json"
"$GRAFANA_BIN" -expand-only -plan "$CACHE/fixed-plan.json" -out "$CACHE/grafana-expansions.json"
if ! cmp -s "$CACHE/grafana-expansions.json" test/conformance/grafana-expansions.json; then
  diff "$CACHE/grafana-expansions.json" test/conformance/grafana-expansions.json | head -40 >&2
  echo "conformance: test/conformance/grafana-expansions.json is stale: bash test/conformance/run.sh --write-expansions" >&2
  exit 1
fi

say "tapehouse run --http-port 0 (built-in simulator)"
RUN=$CACHE/run
rm -rf "$RUN"
mkdir -p "$RUN"
export TAPEHOUSE_CONFORMANCE_DIR=$RUN
: > "$RUN/tally.tsv"
TAPEHOUSE_LOG_LEVEL=warn node bin/tapehouse.js run --http-port 0 --data-dir "$RUN/data" --status off >"$RUN/run.out" 2>"$RUN/run.err" &
RUN_PID=$!
stop_run() {
  if kill -0 "$RUN_PID" 2>/dev/null; then
    kill -TERM "$RUN_PID"
    wait "$RUN_PID" || true
  fi
}
trap stop_run EXIT
for _ in $(seq 1 120); do
  [ -s "$RUN/data/endpoint.json" ] && break
  kill -0 "$RUN_PID" 2>/dev/null || { cat "$RUN/run.err" >&2; exit 1; }
  sleep 0.5
done
URL=$(node -e "console.log(JSON.parse(require('fs').readFileSync('$RUN/data/endpoint.json','utf8')).url)")
export TAPEHOUSE_CONFORMANCE_URL=$URL
# Some data for the dashboards: trades, books, the account, a health sample (every 10 s).
sleep "${TAPEHOUSE_CONFORMANCE_WARMUP:-40}"

# The endpoint's memory while the JS part streams 5,000,000 rows: VmRSS sampled every 100 ms.
sample_rss() {
  while kill -0 "$RUN_PID" 2>/dev/null; do
    awk '/VmRSS/ {print $2}' "/proc/$RUN_PID/status" 2>/dev/null >>"$RUN/rss-$1.txt" || true
    sleep 0.1
  done
}

failed=0
say "Go: the dashboards through clickhouse-go as Grafana's data source connects"
npx tsx test/conformance/grafana-plan.ts --out "$RUN/grafana-plan.json"
"$GRAFANA_BIN" -addr "${URL#http://}" -plan "$RUN/grafana-plan.json" -out "$RUN/grafana-report.json" || failed=1

say "Java: clickhouse-jdbc"
TAPEHOUSE_CONFORMANCE_URL=$URL java -cp "$JDBC/classes:$(cat "$JDBC/classpath.txt")" tapehouse.JdbcConformance test/conformance/hostile-strings.json || failed=1

say "Python: clickhouse-connect"
"$VENV/bin/python" test/conformance/python/conformance.py || failed=1

say "JS: @clickhouse/client, and the judge of the Go report"
awk '/VmRSS/ {print $2}' "/proc/$RUN_PID/status" >"$RUN/rss-before.txt"
sample_rss during &
SAMPLER=$!
npx vitest run --config test/conformance/vitest.config.ts || failed=1
kill "$SAMPLER" 2>/dev/null || true

say "stop tapehouse run"
stop_run
trap - EXIT

say "figures"
printf '%-62s %5s %5s  %s\n' client run ok note
awk -F'\t' '$1 != "figure" { printf "%-62s %5s %5s  %s\n", $1, $2, $3, $4 }' "$RUN/tally.tsv"
awk -F'\t' '$1 == "figure" { print $4 }' "$RUN/tally.tsv"
before=$(cat "$RUN/rss-before.txt")
peak=$(sort -n "$RUN/rss-during.txt" | tail -1)
echo "tapehouse run RSS: ${before} kB before the JS part, peak ${peak} kB while it ran (5,000,000-row select included)"
echo "conformance suite: $(($(date +%s) - started)) s"
awk -F'\t' '$1 != "figure" && $2 != $3 { bad = 1 } END { exit bad }' "$RUN/tally.tsv" || failed=1
exit "$failed"
