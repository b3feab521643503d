#!/bin/sh
# The namespace the tapehouse worker and schedules use, created once (temporalio/admin-tools, after
# the server is healthy). The temporal CLI reads the server from TEMPORAL_ADDRESS (its documented
# variable); the namespace is passed as a flag, since `namespace create` does not take it from
# TEMPORAL_NAMESPACE. The server may accept connections before it serves: tried again, bounded.
set -eu
namespace="$TEMPORAL_NAMESPACE"
retention="${1:-72h}"
attempt=1
until temporal operator namespace describe --namespace "$namespace" >/dev/null 2>&1 \
  || temporal operator namespace create --namespace "$namespace" --retention "$retention"; do
  if [ "$attempt" -ge 30 ]; then
    echo "namespace $namespace: Temporal at $TEMPORAL_ADDRESS did not answer after $attempt attempts" >&2
    exit 1
  fi
  echo "namespace $namespace: Temporal not ready yet (attempt $attempt), trying again in 2 s"
  attempt=$((attempt + 1))
  sleep 2
done
echo "namespace $namespace ready on $TEMPORAL_ADDRESS"
