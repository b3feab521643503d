#!/bin/sh
# Temporal's schema on PostgreSQL: a compose job of its own (temporalio/admin-tools), run before the
# server starts, on every `docker compose up`. Every step is idempotent: `create` ignores a database
# that exists, `setup-schema -v 0.0` keeps a schema already past 0.0, `update-schema` applies only
# the versions not yet applied, so an upgraded image migrates the schema in place.
# temporal-sql-tool reads its connection from SQL_PLUGIN, SQL_HOST, SQL_PORT, SQL_USER and
# SQL_PASSWORD (its documented variables; see docker-compose.yml), the last read here from
# SQL_PASSWORD_FILE.
set -eu
# The password arrives as a secret file (docker-compose.yml), not in the container's environment.
if [ -n "${SQL_PASSWORD_FILE:-}" ]; then
  SQL_PASSWORD="$(cat "$SQL_PASSWORD_FILE")"
  export SQL_PASSWORD
fi
setup() { # database, schema folder under /etc/temporal/schema/postgresql/v12
  echo "schema of database $1"
  temporal-sql-tool --db "$1" create
  temporal-sql-tool --db "$1" setup-schema -v 0.0
  temporal-sql-tool --db "$1" update-schema -d "/etc/temporal/schema/postgresql/v12/$2/versioned"
}
setup temporal temporal
setup temporal_visibility visibility
echo "Temporal schema up to date"
