#!/bin/sh
# The tapehouse image's entrypoint (Dockerfile): checks the secret files this container was given,
# then runs `tapehouse "$@"`. Docker compose (without swarm) bind-mounts a secret file as it is on
# the host, owner and mode included, so a root-owned mode-600 file is unreadable by this image's
# `node` user (uid 1000): said here, with the fix, rather than as a failing venue call later.
# A secret still holding the example's placeholder (`change-me…`) or nothing is refused (exit 2).
set -eu

refuse() {
  echo "tapehouse entrypoint: $*" >&2
  exit 2
}

check_secret() {
  what="$1"
  file="$2"
  [ -e "$file" ] || refuse "$what: $file does not exist (docker-compose.yml's secrets: a file under ./secrets on the host)"
  if [ ! -r "$file" ]; then
    owner="$(stat -c '%u:%g, mode %a' "$file" 2>/dev/null || echo 'unknown owner and mode')"
    refuse "$what: $file ($owner) cannot be read by $(id -un) (uid $(id -u)). On the host: chown $(id -u) secrets/<file> && chmod 400 secrets/<file> (or chmod 444 inside a directory of mode 700); docs/operations.md, \"Secrets\""
  fi
  value="$(cat "$file")"
  [ -n "$value" ] || refuse "$what: $file is empty"
  case "$value" in
    change-me*) refuse "$what: $file still holds the example placeholder ($value): put the real value there" ;;
  esac
}

[ -z "${TAPEHOUSE_TOKEN_FILE:-}" ] || check_secret 'the venue token (TAPEHOUSE_TOKEN_FILE)' "$TAPEHOUSE_TOKEN_FILE"
[ -z "${TAPEHOUSE_CLICKHOUSE_PASSWORD_FILE:-}" ] ||
  check_secret 'the ClickHouse password (TAPEHOUSE_CLICKHOUSE_PASSWORD_FILE)' "$TAPEHOUSE_CLICKHOUSE_PASSWORD_FILE"
# `secrets-check` (docker-compose.yml) is given every secret of the stack and checks them all.
if [ "${1:-}" = "check-secrets" ]; then
  for file in /run/secrets/*; do
    [ -e "$file" ] || refuse "no secrets mounted under /run/secrets"
    check_secret "secret $(basename "$file")" "$file"
  done
  echo "tapehouse entrypoint: every secret is set"
  exit 0
fi
exec node "$(dirname "$0")/../bin/tapehouse.js" "$@"
