#!/usr/bin/env bash
# The Prometheus alert rules (infra/prometheus/rules) checked and unit-tested with Prometheus's own
# promtool, from Debian's `prometheus` package: downloaded and unpacked into a cache directory
# (apt-get download + dpkg -x, ~10 s), nothing installed on the system.
set -euo pipefail
cd "$(dirname "$0")/.."
cache="${PROMTOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tapehouse-promtool}"
promtool="$cache/usr/bin/promtool"
if [ ! -x "$promtool" ]; then
  command -v apt-get >/dev/null || { echo "promtool: needs apt-get (Debian's prometheus package)" >&2; exit 1; }
  mkdir -p "$cache"
  scratch="$(mktemp -d)"
  (cd "$scratch" && apt-get download prometheus >/dev/null && dpkg -x prometheus_*.deb "$cache")
  rm -rf "$scratch"
fi
"$promtool" --version | head -1
"$promtool" check rules infra/prometheus/rules/tapehouse.yml
(cd infra/prometheus/rules && "$promtool" test rules tapehouse.test.yml)
