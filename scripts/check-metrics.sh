#!/usr/bin/env bash
# /metrics as Prometheus would read it: `tapehouse run` for ~10 s on the simulator (every part in
# one process: capture, sync, load, the endpoint), one query through its endpoint, then the page is
# parsed and linted by scripts/check-metrics.py with the Prometheus client's own parser (PyPI
# prometheus-client, pinned, in a virtualenv under .services/). ~20 s.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROMETHEUS_CLIENT_VERSION=0.26.0
VENV="${TAPEHOUSE_SERVICES_DIR:-$ROOT/.services}/metrics-venv"
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('prometheus-client') != '$PROMETHEUS_CLIENT_VERSION')" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "prometheus-client==$PROMETHEUS_CLIENT_VERSION"
fi

WORK="$(mktemp -d)"
cleanup() {
  # A throw-away data directory: no clean stop needed. But the built-in venue runs in a process of
  # its own that saves its world when the job goes (SIGKILL included): wait for it before removing
  # the directory, or the removal races its last save.
  [ -n "${RUN_PID:-}" ] && kill -9 "$RUN_PID" 2>/dev/null && wait "$RUN_PID" 2>/dev/null || true
  local venue
  venue="$(cat "$WORK/data/venue/state.json.lock" 2>/dev/null || true)"
  if [ -n "$venue" ]; then
    for _ in $(seq 1 60); do kill -0 "$venue" 2>/dev/null || break; sleep 0.5; done
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
node "$ROOT/bin/tapehouse.js" run --data-dir "$WORK/data" --http-port 0 --status off --duration 60s >"$WORK/run.out" 2>"$WORK/run.err" &
RUN_PID=$!
for _ in $(seq 1 120); do
  url="$(sed -n 's/^metrics: *\(http[^ ]*\).*/\1/p' "$WORK/run.out")"
  [ -n "$url" ] && break
  kill -0 "$RUN_PID" 2>/dev/null || { cat "$WORK/run.err" >&2; echo "tapehouse run ended before it served /metrics" >&2; exit 1; }
  sleep 0.5
done
[ -n "$url" ] || { echo "tapehouse run did not print its metrics URL" >&2; exit 1; }
# Let frames, rows and batches come in, and time one query of the endpoint.
sleep 8
node "$ROOT/bin/tapehouse.js" sql --data-dir "$WORK/data" "SELECT count() FROM trades" >/dev/null
node -e 'fetch(process.argv[1]).then(async (r) => { if (!r.ok) throw new Error(`${r.status}`); process.stdout.write(await r.text()); })' "$url" >"$WORK/metrics.txt"
"$VENV/bin/python" "$ROOT/scripts/check-metrics.py" "$WORK/metrics.txt" \
  process_cpu_seconds_total nodejs_heap_size_used_bytes tapehouse_frames_total tapehouse_rows_loaded_total \
  tapehouse_freshness_seconds tapehouse_insert_duration_seconds tapehouse_endpoint_query_duration_seconds
