#!/usr/bin/env bash
# The production install as the image does it, with the newest npm: `npm ci --omit=dev` on a
# scratch copy of what the Dockerfile copies, then the installed tree runs a query on chDB.
# (`npm ci` refuses a lock that lacks an entry package.json implies; npm 11+ checks the other
# platforms' optional packages too, see DEVELOPERS.md "npm lock and npm ci".)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT
cd "$ROOT"
mkdir -p "$SCRATCH/scripts" && cp scripts/build.mjs "$SCRATCH/scripts/"
cp -r package.json package-lock.json bin src workflows sql dashboards "$SCRATCH/"
cd "$SCRATCH"
echo "npm ci --omit=dev with npm $(npx -y --loglevel=error npm@latest --version) (the image's node:20 has npm 10.8)"
npx -y --loglevel=error npm@latest ci --omit=dev --no-audit --no-fund
# npm's `prepare` compiled the sources with production dependencies only (esbuild is one).
test -f dist/BUILT && test -f dist/src/cli/main.js || { echo 'npm ci left no dist/: prepare did not build' >&2; exit 1; }
# --allow-writes: a read of a directory that holds no warehouse is refused; this one makes it.
node bin/tapehouse.js sql --allow-writes --data-dir "$SCRATCH/data" "SELECT version() AS clickhouse_in_chdb"
