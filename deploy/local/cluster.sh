#!/usr/bin/env bash
# The cluster profile of the local stack (docs/scaling.md): the production shape on one machine. Three Kafka
# KRaft nodes (each broker and controller, a quorum of three; topics with replication factor 3 and
# min.insync.replicas 2), the registry, a ClickHouse cluster (four servers, two shards of two replicas, and
# ZooKeeper: deploy/local/cluster/clickhouse.sh, docs/design.md A10), Redis, the projector, two ingest instances and the
# dashboard (compiled, from dist/), and HAProxy in front of the ingest instances, checking /health/ready
# on each instance's admin listener (H36: readiness is not on the public port).
# Usage (through stack.sh): stack.sh up|down|status|install|logs [component] --profile cluster
#
# Installs are shared with the single-node profile ($STACK_DIR/kafka, $STACK_DIR/registry, Debian's
# packages); data, logs and pid files live in $CLUSTER_DIR ($STACK_DIR/cluster), so both profiles can
# run at once. Ports: CLUSTER_PORT_BASE (25000) moves the whole block; each is overridable (README).
# `up` starts whatever is not running, so it also restarts a component that was killed.
set -euo pipefail

BASE="${CLUSTER_PORT_BASE:-25000}"
# Set before stack.sh is sourced, so its single-node defaults do not apply to the shared components.
REGISTRY_PORT="${CLUSTER_REGISTRY_PORT:-$((BASE + 81))}"
REDIS_PORT="${CLUSTER_REDIS_PORT:-$((BASE + 379))}"
# shellcheck source=deploy/local/stack.sh
source "$(dirname "${BASH_SOURCE[0]}")/stack.sh"

KAFKA_PORTS=("${CLUSTER_KAFKA_1_PORT:-$((BASE + 92))}" "${CLUSTER_KAFKA_2_PORT:-$((BASE + 192))}" "${CLUSTER_KAFKA_3_PORT:-$((BASE + 292))}")
CONTROLLER_PORTS=("${CLUSTER_KAFKA_1_CONTROLLER_PORT:-$((BASE + 93))}" "${CLUSTER_KAFKA_2_CONTROLLER_PORT:-$((BASE + 193))}" "${CLUSTER_KAFKA_3_CONTROLLER_PORT:-$((BASE + 293))}")
INGEST_PORTS=("${CLUSTER_INGEST_1_PORT:-$((BASE + 1))}" "${CLUSTER_INGEST_2_PORT:-$((BASE + 2))}")
INGEST_ADMIN_PORTS=("${CLUSTER_INGEST_1_ADMIN_PORT:-$((BASE + 11))}" "${CLUSTER_INGEST_2_ADMIN_PORT:-$((BASE + 12))}")
HAPROXY_PORT="${CLUSTER_HAPROXY_PORT:-$BASE}"
HAPROXY_STATS_PORT="${CLUSTER_HAPROXY_STATS_PORT:-$((BASE + 404))}"
PROJECTOR_PORT="${CLUSTER_PROJECTOR_PORT:-$((BASE + 101))}"
DASHBOARD_PORT="${CLUSTER_DASHBOARD_PORT:-$((BASE + 300))}"
WITH_DASHBOARD="${CLUSTER_WITH_DASHBOARD:-1}"
CLUSTER_KAFKA_HEAP="${CLUSTER_KAFKA_HEAP:--Xms128m -Xmx512m}"

INSTALLS="$STACK_DIR"
C="${CLUSTER_DIR:-$STACK_DIR/cluster}"
LOGS="$C/logs"
RUN="$C/run"
say() { printf '[cluster] %s\n' "$*" >&2; }
# shellcheck source=deploy/local/cluster/clickhouse.sh
source "$HERE/cluster/clickhouse.sh"

brokers() { local IFS=,; local a=(); for p in "${KAFKA_PORTS[@]}"; do a+=("127.0.0.1:$p"); done; echo "${a[*]}"; }
voters() { local IFS=,; local a=(); for i in 0 1 2; do a+=("$((i + 1))@127.0.0.1:${CONTROLLER_PORTS[$i]}"); done; echo "${a[*]}"; }

render_cluster() { # template out [NAME=value...]: replaces @NAME@ with value
  local src="$1" out="$2"; shift 2
  local args=()
  for kv in "$@"; do args+=(-e "s#@${kv%%=*}@#${kv#*=}#g"); done
  sed "${args[@]}" "$src" >"$out"
}

install_haproxy() {
  command -v haproxy >/dev/null 2>&1 && return 0
  say "installing HAProxy from Debian's haproxy package (first run only)..."
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  { $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends haproxy; } \
    >"$LOGS/install-haproxy.log" 2>&1 || fail haproxy "apt-get install haproxy failed" "$LOGS/install-haproxy.log"
  command -v haproxy >/dev/null 2>&1 || fail haproxy "haproxy is not on PATH after install"
}

cluster_install() {
  mkdir -p "$LOGS" "$RUN"
  need_java
  STACK_DIR="$INSTALLS" install_kafka
  STACK_DIR="$INSTALLS" install_registry
  install_clickhouse_server
  install_redis
  install_haproxy
  # The registry's start function reads its jar below $STACK_DIR; the jar stays with the installs.
  mkdir -p "$C/registry"
  ln -sfn "$INSTALLS/registry/app" "$C/registry/app"
}

# ---------------------------------------------------------------- Kafka
start_kafka_node() { # 1..3
  local n="$1" comp="kafka-$1" dir="$C/kafka-$1" log="$LOGS/kafka-$1.log"
  local port="${KAFKA_PORTS[$((n - 1))]}" cport="${CONTROLLER_PORTS[$((n - 1))]}"
  if pid_alive "$comp"; then say "$comp already running (pid $(cat "$RUN/$comp.pid"))"; return 0; fi
  check_port_free "$comp" "$port" "CLUSTER_KAFKA_${n}_PORT"
  check_port_free "$comp" "$cport" "CLUSTER_KAFKA_${n}_CONTROLLER_PORT"
  mkdir -p "$dir/data"
  render_cluster "$HERE/cluster/kafka.properties" "$dir/server.properties" NODE_ID="$n" VOTERS="$(voters)" \
    KAFKA_PORT="$port" KAFKA_CONTROLLER_PORT="$cport" DATA_DIR="$dir/data"
  cp "$HERE/kafka/log4j.properties" "$dir/log4j.properties"
  local libs="$INSTALLS/kafka/libs/*"
  # All three nodes are formatted with the same cluster id, generated once.
  [ -f "$C/kafka-cluster-id" ] || java -cp "$libs" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n1 >"$C/kafka-cluster-id"
  if [ ! -f "$dir/data/meta.properties" ]; then
    java -Dlog4j.configuration="file:$dir/log4j.properties" -cp "$libs" kafka.tools.StorageTool format \
      -t "$(cat "$C/kafka-cluster-id")" -c "$dir/server.properties" >"$LOGS/$comp-format.log" 2>&1 \
      || fail "$comp" "could not format the KRaft storage" "$LOGS/$comp-format.log"
  fi
  # The previous run's log is kept (a killed broker's last words), and readiness reads only this run's.
  [ -f "$log" ] && mv "$log" "$log.prev"
  say "starting $comp on 127.0.0.1:$port (controller :$cport)"
  # shellcheck disable=SC2086
  nohup java $CLUSTER_KAFKA_HEAP -XX:+UseG1GC -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$dir/log4j.properties" -Dkafka.logs.dir="$LOGS" \
    -cp "$libs" kafka.Kafka "$dir/server.properties" </dev/null >"$log" 2>&1 &
  echo $! >"$RUN/$comp.pid"
}

kafka_node_ready() { port_open "${KAFKA_PORTS[$(($1 - 1))]}" && grep -q "Kafka Server started" "$LOGS/kafka-$1.log"; }

# ---------------------------------------------------------------- services
# What every service of the profile is pointed at; the rest of the caller's environment passes
# through (the drill sets its own topics and database this way).
service_env() {
  echo "KAFKA_BROKERS=$(brokers)"
  echo "SCHEMA_REGISTRY_URL=http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7"
  # The projector migrates and writes through ch-1 (any server would do: each has the Distributed tables).
  echo "CLICKHOUSE_URL=http://127.0.0.1:$(ch_http_port 1)"
  echo "CLICKHOUSE_CLUSTER=tracking"
  echo "TOPIC_REPLICATION_FACTOR=3"
  echo "TOPIC_MIN_INSYNC_REPLICAS=2"
  echo "REDIS_URL=redis://127.0.0.1:$REDIS_PORT"
  echo "LIVE_TOKEN=$(cat "$C/live-token")"
}

# services/shared/src/node-flags.ts says why; its node-flags.test.ts keeps this in step.
INGEST_NODE_FLAGS=(--max-semi-space-size=64)

start_service() { # comp entry port port-variable [NAME=value...]
  local comp="$1" entry="$2" port="$3" var="$4"; shift 4
  if pid_alive "$comp"; then say "$comp already running (pid $(cat "$RUN/$comp.pid"))"; return 0; fi
  local node_flags=()
  case "$comp" in ingest-*) node_flags=("${INGEST_NODE_FLAGS[@]}") ;; esac
  check_port_free "$comp" "$port" "$var"
  say "starting $comp on 127.0.0.1:$port"
  local envs=()
  mapfile -t envs < <(service_env)
  # Appended, not truncated: a restarted instance's log keeps what its predecessor said.
  printf '=== %s: starting %s\n' "$(date -u +%FT%TZ)" "$comp" >>"$LOGS/$comp.log"
  nohup env "${envs[@]}" "$@" node "${node_flags[@]}" "$ROOT/dist/${entry%.ts}.js" </dev/null >>"$LOGS/$comp.log" 2>&1 &
  echo $! >"$RUN/$comp.pid"
}

service_ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/health" 2>/dev/null)" = 200 ]; }

start_haproxy() {
  if pid_alive haproxy; then say "haproxy already running (pid $(cat "$RUN/haproxy.pid"))"; return 0; fi
  check_port_free haproxy "$HAPROXY_PORT" CLUSTER_HAPROXY_PORT
  check_port_free haproxy "$HAPROXY_STATS_PORT" CLUSTER_HAPROXY_STATS_PORT
  mkdir -p "$C/haproxy"
  cp "$HERE/cluster/503.http" "$C/haproxy/503.http"
  render_cluster "$HERE/cluster/haproxy.cfg" "$C/haproxy/haproxy.cfg" CLUSTER_DIR="$C" HAPROXY_PORT="$HAPROXY_PORT" \
    HAPROXY_STATS_PORT="$HAPROXY_STATS_PORT" INGEST_1_PORT="${INGEST_PORTS[0]}" INGEST_2_PORT="${INGEST_PORTS[1]}" \
    INGEST_1_ADMIN_PORT="${INGEST_ADMIN_PORTS[0]}" INGEST_2_ADMIN_PORT="${INGEST_ADMIN_PORTS[1]}"
  haproxy -c -f "$C/haproxy/haproxy.cfg" >"$LOGS/haproxy-check.log" 2>&1 || fail haproxy "invalid configuration" "$LOGS/haproxy-check.log"
  say "starting haproxy on 127.0.0.1:$HAPROXY_PORT (stats http://127.0.0.1:$HAPROXY_STATS_PORT/)"
  # -db: stay in the foreground, so the recorded pid is the one that serves.
  nohup haproxy -db -f "$C/haproxy/haproxy.cfg" </dev/null >"$LOGS/haproxy.log" 2>&1 &
  echo $! >"$RUN/haproxy.pid"
}

# Ready once a request through it reaches an ingest instance: HAProxy sends traffic only to instances
# whose readiness check (admin port) passes, and the public port answers liveness.
haproxy_ready() { [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$HAPROXY_PORT/health/live" 2>/dev/null)" = 200 ]; }

# ---------------------------------------------------------------- commands
all_ports() {
  echo "${KAFKA_PORTS[@]} ${CONTROLLER_PORTS[@]} $REGISTRY_PORT $(clickhouse_ports) $REDIS_PORT ${INGEST_PORTS[@]} ${INGEST_ADMIN_PORTS[@]} $HAPROXY_PORT $HAPROXY_STATS_PORT $PROJECTOR_PORT $DASHBOARD_PORT"
}

cluster_up() {
  local t0=$SECONDS
  mkdir -p "$LOGS" "$RUN"
  # shellcheck disable=SC2046
  [ "$(printf '%s\n' $(all_ports) | sort -u | wc -l)" -eq "$(printf '%s\n' $(all_ports) | wc -l)" ] || fail cluster "two of its ports are the same: $(all_ports)"
  # A taken port is reported before anything is installed or started.
  local n
  for n in 1 2 3; do
    pid_alive "kafka-$n" || { check_port_free "kafka-$n" "${KAFKA_PORTS[$((n - 1))]}" "CLUSTER_KAFKA_${n}_PORT"; check_port_free "kafka-$n" "${CONTROLLER_PORTS[$((n - 1))]}" "CLUSTER_KAFKA_${n}_CONTROLLER_PORT"; }
  done
  pid_alive registry || check_port_free registry "$REGISTRY_PORT" CLUSTER_REGISTRY_PORT
  check_clickhouse_ports_free
  pid_alive redis || check_port_free redis "$REDIS_PORT" CLUSTER_REDIS_PORT
  pid_alive projector || check_port_free projector "$PROJECTOR_PORT" CLUSTER_PROJECTOR_PORT
  for n in 1 2; do pid_alive "ingest-$n" || { check_port_free "ingest-$n" "${INGEST_PORTS[$((n - 1))]}" "CLUSTER_INGEST_${n}_PORT"; check_port_free "ingest-$n" "${INGEST_ADMIN_PORTS[$((n - 1))]}" "CLUSTER_INGEST_${n}_ADMIN_PORT"; }; done
  pid_alive haproxy || check_port_free haproxy "$HAPROXY_PORT" CLUSTER_HAPROXY_PORT
  cluster_install
  [ -f "$C/live-token" ] || { head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$C/live-token"; chmod 600 "$C/live-token"; }
  say "compiling the services to dist/ (only when sources changed)"
  (cd "$ROOT" && node scripts/ensure-built.mjs) >"$LOGS/build.log" 2>&1 || fail build "npm run build failed" "$LOGS/build.log"
  STACK_DIR="$C"
  for n in 1 2 3; do start_kafka_node "$n"; done
  start_registry
  start_redis
  clickhouse_up
  wait_until redis "$LOGS/redis.log" "$READY_TIMEOUT" redis_ready
  # A topic with replication factor 3 can only be created once all three brokers are registered.
  for n in 1 2 3; do wait_until "kafka-$n" "$LOGS/kafka-$n.log" "$READY_TIMEOUT" kafka_node_ready "$n"; done
  wait_until registry "$LOGS/registry.log" "$READY_TIMEOUT" registry_ready
  # The projector first: it applies the ClickHouse migrations that ingest's usage reads need.
  start_service projector services/projector/src/main.ts "$PROJECTOR_PORT" CLUSTER_PROJECTOR_PORT PROJECTOR_PORT="$PROJECTOR_PORT"
  wait_until projector "$LOGS/projector.log" "$READY_TIMEOUT" service_ready "$PROJECTOR_PORT"
  for i in 1 2; do
    # A fixed transactional id per instance, so a restarted instance fences its killed predecessor.
    start_service "ingest-$i" services/ingest/src/main.ts "${INGEST_PORTS[$((i - 1))]}" "CLUSTER_INGEST_${i}_PORT" \
      INGEST_PORT="${INGEST_PORTS[$((i - 1))]}" INGEST_ADMIN_PORT="${INGEST_ADMIN_PORTS[$((i - 1))]}" INGEST_INSTANCE_ID="cluster-ingest-$i"
  done
  if [ "$WITH_DASHBOARD" = 1 ]; then
    start_service dashboard services/dashboard/src/main.ts "$DASHBOARD_PORT" CLUSTER_DASHBOARD_PORT DASHBOARD_PORT="$DASHBOARD_PORT" \
      PROJECTOR_URL="http://127.0.0.1:$PROJECTOR_PORT" INGEST_URL="http://127.0.0.1:$HAPROXY_PORT"
  fi
  for i in 1 2; do wait_until "ingest-$i" "$LOGS/ingest-$i.log" "$READY_TIMEOUT" service_ready "${INGEST_ADMIN_PORTS[$((i - 1))]}"; done
  [ "$WITH_DASHBOARD" = 1 ] && wait_until dashboard "$LOGS/dashboard.log" "$READY_TIMEOUT" service_ready "$DASHBOARD_PORT"
  start_haproxy
  wait_until haproxy "$LOGS/haproxy.log" "$READY_TIMEOUT" haproxy_ready
  say "cluster up in $((SECONDS - t0))s: ingest http://127.0.0.1:$HAPROXY_PORT (HAProxy over :${INGEST_PORTS[0]} and :${INGEST_PORTS[1]}), kafka $(brokers), registry :$REGISTRY_PORT, clickhouse :$(ch_http_port 1)-$(ch_http_port 4) (zookeeper :$ZOOKEEPER_PORT), redis :$REDIS_PORT, projector :$PROJECTOR_PORT$([ "$WITH_DASHBOARD" = 1 ] && echo ", dashboard http://127.0.0.1:$DASHBOARD_PORT")"
}

# SIGTERM to several at once, then wait: the last Kafka node stopped alone would wait for a
# controller quorum that is already gone.
stop_together() {
  local comp pid
  for comp in "$@"; do pid_alive "$comp" && kill "$(cat "$RUN/$comp.pid")" 2>/dev/null || true; done
  for comp in "$@"; do
    if [ ! -f "$RUN/$comp.pid" ]; then say "$comp not running"; continue; fi
    pid=$(cat "$RUN/$comp.pid")
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$pid" 2>/dev/null; then say "$comp did not stop in 30s; killing"; kill -9 "$pid" 2>/dev/null || true; fi
    rm -f "$RUN/$comp.pid"
    say "$comp stopped"
  done
}

cluster_down() {
  mkdir -p "$RUN"
  # Front to back: no new requests, then ingest drains into Kafka, the projector into ClickHouse.
  stop_one haproxy
  [ -f "$RUN/dashboard.pid" ] && stop_one dashboard
  stop_together ingest-1 ingest-2
  stop_one projector
  stop_together registry redis
  clickhouse_down
  stop_together kafka-1 kafka-2 kafka-3
}

cluster_status() {
  mkdir -p "$RUN"
  local rc=0
  report() { # comp endpoint readyfn [args]
    local comp="$1" ep="$2"; shift 2
    if pid_alive "$comp" && "$@" >/dev/null 2>&1; then printf '%-13s up    pid %-7s %s\n' "$comp" "$(cat "$RUN/$comp.pid")" "$ep"
    elif pid_alive "$comp"; then printf '%-13s starting pid %-4s %s\n' "$comp" "$(cat "$RUN/$comp.pid")" "$ep"; rc=1
    else printf '%-13s down                %s\n' "$comp" "$ep"; rc=1; fi
  }
  for n in 1 2 3; do report "kafka-$n" "127.0.0.1:${KAFKA_PORTS[$((n - 1))]}" kafka_node_ready "$n"; done
  report registry "http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7" registry_ready
  clickhouse_status
  report redis "redis://127.0.0.1:$REDIS_PORT" redis_ready
  report projector "http://127.0.0.1:$PROJECTOR_PORT" service_ready "$PROJECTOR_PORT"
  for i in 1 2; do report "ingest-$i" "http://127.0.0.1:${INGEST_PORTS[$((i - 1))]} (admin :${INGEST_ADMIN_PORTS[$((i - 1))]})" service_ready "${INGEST_ADMIN_PORTS[$((i - 1))]}"; done
  [ "$WITH_DASHBOARD" = 1 ] && report dashboard "http://127.0.0.1:$DASHBOARD_PORT" service_ready "$DASHBOARD_PORT"
  report haproxy "http://127.0.0.1:$HAPROXY_PORT (stats :$HAPROXY_STATS_PORT)" haproxy_ready
  return $rc
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
  up) cluster_up ;;
  down) cluster_down ;;
  # ZooKeeper and the four ClickHouse servers alone (the migration runner's cluster tests).
  clickhouse-up) mkdir -p "$LOGS" "$RUN"; check_clickhouse_ports_free; need_java; STACK_DIR="$INSTALLS" install_kafka; install_clickhouse_server; STACK_DIR="$C"; clickhouse_up ;;
  clickhouse-down) mkdir -p "$RUN"; clickhouse_down ;;
  status) cluster_status ;;
  install) cluster_install ;;
  env) service_env | grep -v '^LIVE_TOKEN=' ;;
  logs) tail -n 50 "$LOGS/${1:-kafka-1}.log" ;;
  *) echo "usage: stack.sh up|down|status|install|env|logs|clickhouse-up|clickhouse-down [kafka-1..3|registry|zookeeper|clickhouse-1..4|redis|projector|ingest-1|ingest-2|dashboard|haproxy] --profile cluster" >&2; exit 2 ;;
esac
