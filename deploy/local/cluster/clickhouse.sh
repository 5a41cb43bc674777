# shellcheck shell=bash
# The cluster profile's ClickHouse (docs/design.md A10): one ZooKeeper and four of Debian's clickhouse-server
# 18.16, two shards (ch-1 + ch-2, ch-3 + ch-4) of two replicas each, named `tracking` in every server's
# <remote_servers>. Sourced by deploy/local/cluster.sh, which defines BASE, C, LOGS, RUN, INSTALLS and the
# helpers of stack.sh (pid_alive, check_port_free, wait_until, fail, say) and render_cluster.
#
# Debian's package is installed here, not by stack.sh: the single-node stack runs ClickHouse 26.9 (A7),
# which cannot replicate (docs/scaling.md), so 18.16 is this profile's alone.

CH_NODES=(1 2 3 4)
ZOOKEEPER_PORT="${CLUSTER_ZOOKEEPER_PORT:-$((BASE + 181))}"
ZOOKEEPER_HEAP="${CLUSTER_ZOOKEEPER_HEAP:--Xms64m -Xmx256m}"
ch_http_port() { local v="CLUSTER_CLICKHOUSE_${1}_HTTP_PORT"; echo "${!v:-$((BASE + 120 + $1))}"; }
ch_tcp_port() { local v="CLUSTER_CLICKHOUSE_${1}_TCP_PORT"; echo "${!v:-$((BASE + 130 + $1))}"; }
ch_interserver_port() { local v="CLUSTER_CLICKHOUSE_${1}_INTERSERVER_PORT"; echo "${!v:-$((BASE + 140 + $1))}"; }
ch_shard() { echo "0$(( ($1 + 1) / 2 ))"; }

clickhouse_ports() {
  local n
  echo "$ZOOKEEPER_PORT"
  for n in "${CH_NODES[@]}"; do echo "$(ch_http_port "$n") $(ch_tcp_port "$n") $(ch_interserver_port "$n")"; done
}

# Before anything is installed or started: a taken port names its variable.
check_clickhouse_ports_free() {
  local n
  pid_alive zookeeper || check_port_free zookeeper "$ZOOKEEPER_PORT" CLUSTER_ZOOKEEPER_PORT
  for n in "${CH_NODES[@]}"; do
    pid_alive "clickhouse-$n" && continue
    check_port_free "clickhouse-$n" "$(ch_http_port "$n")" "CLUSTER_CLICKHOUSE_${n}_HTTP_PORT"
    check_port_free "clickhouse-$n" "$(ch_tcp_port "$n")" "CLUSTER_CLICKHOUSE_${n}_TCP_PORT"
    check_port_free "clickhouse-$n" "$(ch_interserver_port "$n")" "CLUSTER_CLICKHOUSE_${n}_INTERSERVER_PORT"
  done
}

install_clickhouse_server() {
  command -v clickhouse-server >/dev/null 2>&1 && return 0
  say "installing ClickHouse 18.16 from Debian's clickhouse-server package (first run only)..."
  local log="$LOGS/install-clickhouse.log" sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -q >"$log" 2>&1 || fail clickhouse "apt-get update failed" "$log"
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q clickhouse-server clickhouse-client >>"$log" 2>&1 \
    || fail clickhouse "apt-get install clickhouse-server failed" "$log"
  command -v clickhouse-server >/dev/null 2>&1 || fail clickhouse "clickhouse-server is not on PATH after install"
}

start_zookeeper() {
  local dir="$C/zookeeper" log="$LOGS/zookeeper.log"
  if pid_alive zookeeper; then say "zookeeper already running (pid $(cat "$RUN/zookeeper.pid"))"; return 0; fi
  check_port_free zookeeper "$ZOOKEEPER_PORT" CLUSTER_ZOOKEEPER_PORT
  mkdir -p "$dir/data"
  render_cluster "$HERE/cluster/zoo.cfg" "$dir/zoo.cfg" DATA_DIR="$dir/data" ZOOKEEPER_PORT="$ZOOKEEPER_PORT"
  cp "$HERE/kafka/log4j.properties" "$dir/log4j.properties"
  [ -f "$log" ] && mv "$log" "$log.prev"
  say "starting zookeeper on 127.0.0.1:$ZOOKEEPER_PORT"
  # shellcheck disable=SC2086
  nohup java $ZOOKEEPER_HEAP -Djava.awt.headless=true -Dlog4j.configuration="file:$dir/log4j.properties" \
    -cp "$INSTALLS/kafka/libs/*" org.apache.zookeeper.server.quorum.QuorumPeerMain "$dir/zoo.cfg" </dev/null >"$log" 2>&1 &
  echo $! >"$RUN/zookeeper.pid"
}

# Serving, not just running: `ruok` answers imok while ZooKeeper still loads its data and closes every
# session, and a ClickHouse server whose replicated tables cannot reach ZooKeeper at start exits (code 132).
# `srvr` (allowed in zoo.cfg) names the server's mode only once it serves.
zookeeper_ready() {
  exec 3<>"/dev/tcp/127.0.0.1/$ZOOKEEPER_PORT" || return 1
  printf srvr >&3
  local answer
  answer=$(timeout 2 cat <&3)
  exec 3<&-
  [[ "$answer" == *"Mode: "* ]]
}

start_clickhouse_node() { # 1..4
  local n="$1" comp="clickhouse-$1" dir="$C/clickhouse-$1" log="$LOGS/clickhouse-$1.log"
  if pid_alive "$comp"; then say "$comp already running (pid $(cat "$RUN/$comp.pid"))"; return 0; fi
  check_port_free "$comp" "$(ch_http_port "$n")" "CLUSTER_CLICKHOUSE_${n}_HTTP_PORT"
  check_port_free "$comp" "$(ch_tcp_port "$n")" "CLUSTER_CLICKHOUSE_${n}_TCP_PORT"
  check_port_free "$comp" "$(ch_interserver_port "$n")" "CLUSTER_CLICKHOUSE_${n}_INTERSERVER_PORT"
  mkdir -p "$dir/data"
  render_cluster "$HERE/cluster/clickhouse.xml" "$dir/config.xml" NAME="$comp" SHARD="$(ch_shard "$n")" \
    LOG_DIR="$LOGS" DATA_DIR="$dir/data" HTTP_PORT="$(ch_http_port "$n")" TCP_PORT="$(ch_tcp_port "$n")" \
    INTERSERVER_PORT="$(ch_interserver_port "$n")" ZOOKEEPER_PORT="$ZOOKEEPER_PORT" \
    TCP_PORT_1="$(ch_tcp_port 1)" TCP_PORT_2="$(ch_tcp_port 2)" TCP_PORT_3="$(ch_tcp_port 3)" TCP_PORT_4="$(ch_tcp_port 4)"
  # The single node's users and profiles (the dashboard's read-only user, H23).
  cp "$HERE/clickhouse/users.xml" "$dir/users.xml"
  say "starting $comp (shard $(ch_shard "$n")) on 127.0.0.1:$(ch_http_port "$n") (http), :$(ch_tcp_port "$n") (native), :$(ch_interserver_port "$n") (interserver)"
  printf '=== %s: starting %s\n' "$(date -u +%FT%TZ)" "$comp" >>"$log"
  nohup clickhouse-server --config-file="$dir/config.xml" </dev/null >>"$log" 2>&1 &
  echo $! >"$RUN/$comp.pid"
}

clickhouse_node_ready() { [ "$(curl -fsS "http://127.0.0.1:$(ch_http_port "$1")/ping" 2>/dev/null)" = "Ok." ]; }

# Ready when every server answers and ch-1 has its ZooKeeper session (the first ON CLUSTER needs both).
clickhouse_cluster_ready() {
  local n
  for n in "${CH_NODES[@]}"; do clickhouse_node_ready "$n" || return 1; done
  curl -fsS "http://127.0.0.1:$(ch_http_port 1)/" --data-binary "SELECT count() FROM system.zookeeper WHERE path = '/'" >/dev/null 2>&1
}

clickhouse_up() {
  local n
  start_zookeeper
  wait_until zookeeper "$LOGS/zookeeper.log" "$READY_TIMEOUT" zookeeper_ready
  for n in "${CH_NODES[@]}"; do start_clickhouse_node "$n"; done
  for n in "${CH_NODES[@]}"; do wait_until "clickhouse-$n" "$LOGS/clickhouse-$n.log" "$READY_TIMEOUT" clickhouse_node_ready "$n"; done
  wait_until clickhouse-1 "$LOGS/clickhouse-1-server.err.log" "$READY_TIMEOUT" clickhouse_cluster_ready
}

clickhouse_down() {
  stop_together clickhouse-1 clickhouse-2 clickhouse-3 clickhouse-4
  stop_together zookeeper
}

clickhouse_status() { # report is cluster_status's
  local n
  report zookeeper "127.0.0.1:$ZOOKEEPER_PORT" zookeeper_ready
  for n in "${CH_NODES[@]}"; do
    report "clickhouse-$n" "http://127.0.0.1:$(ch_http_port "$n") (shard $(ch_shard "$n"))" clickhouse_node_ready "$n"
  done
}
