#!/usr/bin/env bash
# The local stack: Kafka (KRaft, one node), Apicurio Registry 3 (Confluent-compatible API) and
# ClickHouse 26.9 (ClickHouse's own server embedded in PyPI's chdb-core, docs/design.md A7 and A8;
# deploy/local/clickhouse.sh runs it alone), installed on first use and started on loopback; with
# --with-redis also Redis (the shared limiter state of several ingest instances; one instance does
# not need it). Data and logs live under .stack/ (git-ignored).
# Usage: stack.sh up [--with-redis] | down | status | install [...] | logs [component]
#        stack.sh up|down|status|install|logs --profile cluster  (deploy/local/cluster.sh)
# --with-clickhouse-current is still accepted and does nothing: the current ClickHouse is the one (A8).
#
# Installs are cached: Kafka's jars and the registry's zip come from Maven Central through Maven
# (they stay in ~/.m2 and .stack/), Redis from Debian's packages, ClickHouse from PyPI (chdb-core,
# pinned) into a venv in .stack/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/deploy/local"
STACK_DIR="${STACK_DIR:-$ROOT/.stack}"
LOGS="$STACK_DIR/logs"
RUN="$STACK_DIR/run"

KAFKA_VERSION="3.9.1"
REGISTRY_VERSION="${REGISTRY_VERSION:-3.0.9}"
KAFKA_PORT="${KAFKA_PORT:-19092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-19093}"
REGISTRY_PORT="${REGISTRY_PORT:-18081}"
CLICKHOUSE_HTTP_PORT="${CLICKHOUSE_HTTP_PORT:-18123}"
CLICKHOUSE_TCP_PORT="${CLICKHOUSE_TCP_PORT:-19000}"
REDIS_PORT="${REDIS_PORT:-16379}"
WITH_REDIS="${STACK_WITH_REDIS:-0}"
# Pinned: the launcher uses chdb's low-level entry (deploy/local/chdb/server.py), which may change.
CHDB_CORE_VERSION="26.9.0"
# Fixed when this file is read: cluster.sh moves STACK_DIR to its own directory, the install stays.
# The drill's own stack points it at the shared stack's install (560 MB) instead of making another.
CHDB_VENV="${CHDB_VENV:-$STACK_DIR/chdb-venv}"
KAFKA_HEAP="${KAFKA_HEAP:--Xms256m -Xmx768m}"
REGISTRY_HEAP="${REGISTRY_HEAP:--Xms128m -Xmx512m}"
READY_TIMEOUT="${STACK_READY_TIMEOUT:-120}"

say() { printf '[stack] %s\n' "$*" >&2; }
fail() { # component, reason, log file
  printf '[stack] FAILED: %s: %s\n' "$1" "$2" >&2
  if [ -n "${3:-}" ] && [ -f "$3" ]; then
    printf '[stack] last lines of %s:\n' "$3" >&2
    tail -n 20 "$3" | sed 's/^/    /' >&2
  fi
  exit 1
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pid_alive() { [ -f "$RUN/$1.pid" ] && kill -0 "$(cat "$RUN/$1.pid")" 2>/dev/null; }

# A port held by someone else is a clear failure, not a silent reuse of a stranger's server.
check_port_free() { # component port
  if port_open "$2"; then
    fail "$1" "port $2 on 127.0.0.1 is taken by another process (set ${3:-its port variable} to move it)"
  fi
}

wait_until() { # component log timeout command...
  local comp="$1" log="$2" timeout="$3"; shift 3
  local start=$SECONDS
  while ! "$@" >/dev/null 2>&1; do
    if ! pid_alive "$comp"; then fail "$comp" "process exited during start" "$log"; fi
    if [ $((SECONDS - start)) -ge "$timeout" ]; then fail "$comp" "not ready after ${timeout}s" "$log"; fi
    sleep 0.5
  done
  say "$comp ready in $((SECONDS - start))s"
}

need_java() {
  command -v java >/dev/null 2>&1 || fail java "Java is missing: install a JDK 17 (apt-get install openjdk-17-jre-headless)"
  local v
  v=$(java -version 2>&1 | head -n1 | sed -E 's/.*"([0-9]+).*/\1/')
  [ "$v" -ge 17 ] 2>/dev/null || fail java "Java 17 or later is needed, found: $(java -version 2>&1 | head -n1)"
}

# ---------------------------------------------------------------- install
install_kafka() {
  local libs="$STACK_DIR/kafka/libs" marker="$STACK_DIR/kafka/.installed-$KAFKA_VERSION"
  [ -f "$marker" ] && return 0
  command -v mvn >/dev/null 2>&1 || fail kafka "Maven (mvn) is missing: it resolves Kafka's jars from Maven Central"
  say "installing Kafka $KAFKA_VERSION jars from Maven Central (first run only)..."
  rm -rf "$libs"; mkdir -p "$libs"
  mvn -B -q -f "$HERE/pom.xml" -Dkafka.version="$KAFKA_VERSION" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$libs" >"$LOGS/install-kafka.log" 2>&1 \
    || fail kafka "download failed (Maven could not resolve the jars)" "$LOGS/install-kafka.log"
  touch "$marker"
  say "Kafka installed: $(ls "$libs" | wc -l) jars"
}

install_registry() {
  local dir="$STACK_DIR/registry" marker="$STACK_DIR/registry/.installed-$REGISTRY_VERSION"
  [ -f "$marker" ] && return 0
  command -v mvn >/dev/null 2>&1 || fail registry "Maven (mvn) is missing: it fetches the registry from Maven Central"
  command -v unzip >/dev/null 2>&1 || fail registry "unzip is missing (apt-get install unzip)"
  say "installing Apicurio Registry $REGISTRY_VERSION from Maven Central (first run only, ~110 MB)..."
  rm -rf "$dir/app"; mkdir -p "$dir"
  mvn -B -q dependency:copy -Dartifact="io.apicurio:apicurio-registry-app:$REGISTRY_VERSION:zip:all" \
    -DoutputDirectory="$dir" >"$LOGS/install-registry.log" 2>&1 \
    || fail registry "download failed (io.apicurio:apicurio-registry-app:$REGISTRY_VERSION:zip:all)" "$LOGS/install-registry.log"
  unzip -q -o "$dir/apicurio-registry-app-$REGISTRY_VERSION-all.zip" -d "$dir/app" \
    || fail registry "could not unzip the registry"
  rm -f "$dir/apicurio-registry-app-$REGISTRY_VERSION-all.zip"
  touch "$marker"
  say "registry installed"
}

install_redis() {
  command -v redis-server >/dev/null 2>&1 && return 0
  say "installing Redis from Debian's redis-server package (first run only)..."
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  { $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends redis-server redis-tools; } \
    >"$LOGS/install-redis.log" 2>&1 \
    || fail redis "apt-get install redis-server failed" "$LOGS/install-redis.log"
  command -v redis-server >/dev/null 2>&1 || fail redis "redis-server is not on PATH after install"
  say "Redis installed: $(redis-server --version 2>/dev/null | head -n1)"
}

# A40: a replay over sealed records runs with Debian's jemalloc when it is installed (REPLAY_JEMALLOC=auto);
# the Dockerfile installs it too. Without it the replay still runs, on glibc's allocator (A39).
install_jemalloc() {
  ls /usr/lib/*-linux-gnu/libjemalloc.so.2 >/dev/null 2>&1 && return 0
  say "installing jemalloc from Debian's libjemalloc2 package (first run only)..."
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  { $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends libjemalloc2; } \
    >"$LOGS/install-jemalloc.log" 2>&1 \
    || fail jemalloc "apt-get install libjemalloc2 failed" "$LOGS/install-jemalloc.log"
}

# A venv that can be made: Debian's python3 needs python3-venv for ensurepip; the wheel needs 3.9+.
python_venv_ok() { command -v python3 >/dev/null 2>&1 && python3 -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 9))' 2>/dev/null; }
need_python_venv() {
  python_venv_ok && return 0
  say "installing Python's venv from Debian's python3-venv package (first run only)..."
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  { $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends python3-venv; } \
    >"$LOGS/install-python-venv.log" 2>&1 \
    || fail clickhouse "apt-get install python3-venv failed" "$LOGS/install-python-venv.log"
  python_venv_ok || fail clickhouse "Python 3.9 or later with venv is needed for chdb-core, found: $(python3 --version 2>&1)"
}

# ClickHouse's own server, embedded in PyPI's chdb-core (no pandas or pyarrow needed: --no-deps).
install_clickhouse() {
  local venv="$CHDB_VENV" marker="$CHDB_VENV/.installed-chdb-core-$CHDB_CORE_VERSION"
  [ -f "$marker" ] && return 0
  need_python_venv
  say "installing ClickHouse 26.9 (chdb-core $CHDB_CORE_VERSION from PyPI into $venv: 180 MB download, 560 MB installed; first run only)..."
  rm -rf "$venv"
  # The import check runs in the venv's directory: chdb's import reads a ./config.xml if there is one.
  { python3 -m venv "$venv" \
    && "$venv/bin/pip" install -q --disable-pip-version-check --no-deps "chdb-core==$CHDB_CORE_VERSION" \
    && (cd "$venv" && "$venv/bin/python" -c 'import chdb; print("ClickHouse", chdb.engine_version)'); } \
    >"$LOGS/install-clickhouse.log" 2>&1 \
    || fail clickhouse "pip install chdb-core==$CHDB_CORE_VERSION failed" "$LOGS/install-clickhouse.log"
  touch "$marker"
  say "ClickHouse installed: $(tail -n1 "$LOGS/install-clickhouse.log")"
}

do_install() {
  mkdir -p "$LOGS" "$RUN"
  need_java
  install_kafka
  install_registry
  install_clickhouse
  install_jemalloc
  [ "$WITH_REDIS" = 1 ] && install_redis
  return 0
}

# ---------------------------------------------------------------- start
render() { # template out: replaces @VARS@ from the environment of this script
  sed -e "s#@STACK_DIR@#$STACK_DIR#g" \
      -e "s#@KAFKA_PORT@#$KAFKA_PORT#g" \
      -e "s#@KAFKA_CONTROLLER_PORT@#$KAFKA_CONTROLLER_PORT#g" \
      -e "s#@CLICKHOUSE_HTTP_PORT@#$CLICKHOUSE_HTTP_PORT#g" \
      -e "s#@CLICKHOUSE_TCP_PORT@#$CLICKHOUSE_TCP_PORT#g" "$1" >"$2"
}

start_kafka() {
  if pid_alive kafka; then say "kafka already running (pid $(cat "$RUN/kafka.pid"))"; return 0; fi
  check_port_free kafka "$KAFKA_PORT" KAFKA_PORT
  check_port_free kafka "$KAFKA_CONTROLLER_PORT" KAFKA_CONTROLLER_PORT
  local dir="$STACK_DIR/kafka" log="$LOGS/kafka.log"
  mkdir -p "$dir/data"
  render "$HERE/kafka/server.properties" "$dir/server.properties"
  cp "$HERE/kafka/log4j.properties" "$dir/log4j.properties"
  if [ ! -f "$dir/data/meta.properties" ]; then
    local id
    id=$(java -cp "$dir/libs/*" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n1)
    java -Dlog4j.configuration="file:$dir/log4j.properties" -cp "$dir/libs/*" kafka.tools.StorageTool format \
      -t "$id" -c "$dir/server.properties" >"$LOGS/kafka-format.log" 2>&1 \
      || fail kafka "could not format the KRaft storage" "$LOGS/kafka-format.log"
  fi
  say "starting kafka on 127.0.0.1:$KAFKA_PORT"
  # shellcheck disable=SC2086
  nohup java $KAFKA_HEAP -XX:+UseG1GC -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$dir/log4j.properties" -Dkafka.logs.dir="$LOGS" \
    -cp "$dir/libs/*" kafka.Kafka "$dir/server.properties" </dev/null >"$log" 2>&1 &
  echo $! >"$RUN/kafka.pid"
}

start_registry() {
  if pid_alive registry; then say "registry already running (pid $(cat "$RUN/registry.pid"))"; return 0; fi
  check_port_free registry "$REGISTRY_PORT" REGISTRY_PORT
  local dir="$STACK_DIR/registry" log="$LOGS/registry.log"
  mkdir -p "$dir/data"
  say "starting registry on 127.0.0.1:$REGISTRY_PORT"
  # Storage is an H2 database in a file, so schema ids survive restarts (old records keep decoding).
  # Started directly (not in a subshell), so the recorded pid is the JVM's and `down` stops it.
  # shellcheck disable=SC2086
  nohup java $REGISTRY_HEAP -Djava.awt.headless=true \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$REGISTRY_PORT" \
    -Dquarkus.log.level=WARN -Dquarkus.log.category.\"io.apicurio\".level=INFO \
    -Dapicurio.storage.kind=sql -Dapicurio.storage.sql.kind=h2 \
    "-Dapicurio.datasource.url=jdbc:h2:file:$dir/data/registry;DB_CLOSE_ON_EXIT=FALSE" \
    -Dapicurio.datasource.username=sa -Dapicurio.datasource.password=sa \
    -Dapicurio.rest.deletion.artifact.enabled=true -Dapicurio.rest.deletion.artifact-version.enabled=true \
    -jar "$dir/app/apicurio-registry-app-$REGISTRY_VERSION-runner.jar" </dev/null >"$log" 2>&1 &
  echo $! >"$RUN/registry.pid"
}

check_clickhouse_ports() {
  check_port_free clickhouse "$CLICKHOUSE_HTTP_PORT" CLICKHOUSE_HTTP_PORT
  check_port_free clickhouse "$CLICKHOUSE_TCP_PORT" CLICKHOUSE_TCP_PORT
}

start_clickhouse() {
  local dir="$STACK_DIR/clickhouse" log="$LOGS/clickhouse.log"
  if pid_alive clickhouse; then
    # LocalServer reads users.xml once, at start: a change needs a restart.
    { cmp -s "$HERE/clickhouse/users.xml" "$dir/users.xml" && diff -rq "$HERE/chdb/users.d" "$dir/users.d" >/dev/null 2>&1; } \
      || say "clickhouse: its users changed (deploy/local/clickhouse/users.xml, deploy/local/chdb/users.d); restart it to apply (deploy/local/clickhouse.sh down, then up)"
    say "clickhouse already running (pid $(cat "$RUN/clickhouse.pid"))"; return 0
  fi
  check_clickhouse_ports
  # 18.16 kept its data in $dir/data, which 26.9 does not read (A8): a new directory, the old one left alone.
  [ -d "$dir/data/metadata" ] && say "clickhouse: $dir/data holds ClickHouse 18.16's data, which is no longer read (A8); delete it, and replay to rebuild (npm run replay)"
  mkdir -p "$dir/db"
  render "$HERE/chdb/config.xml" "$dir/config.xml"
  # The project's users (deploy/local/clickhouse/users.xml), and users.d/ putting back a packaged server's defaults (A7).
  cp "$HERE/clickhouse/users.xml" "$dir/users.xml"
  rm -rf "$dir/users.d"; cp -r "$HERE/chdb/users.d" "$dir/users.d"
  say "starting clickhouse (26.9) on 127.0.0.1:$CLICKHOUSE_HTTP_PORT (http) and :$CLICKHOUSE_TCP_PORT (native)"
  # The pid is the supervisor's (deploy/local/chdb/server.py): SIGTERM stops the server cleanly.
  nohup "$CHDB_VENV/bin/python" "$HERE/chdb/server.py" "$dir" "$dir/db" </dev/null >"$log" 2>&1 &
  echo $! >"$RUN/clickhouse.pid"
}

start_redis() {
  if pid_alive redis; then say "redis already running (pid $(cat "$RUN/redis.pid"))"; return 0; fi
  check_port_free redis "$REDIS_PORT" REDIS_PORT
  local dir="$STACK_DIR/redis" log="$LOGS/redis.log"
  mkdir -p "$dir"
  say "starting redis on 127.0.0.1:$REDIS_PORT"
  # Limiter counters live for a minute at most and the monthly counters are reconciled from
  # ClickHouse, so an append-only file is not needed; one snapshot a minute keeps a restart warm.
  nohup redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$dir" --dbfilename dump.rdb \
    --save 60 1 --appendonly no --daemonize no --protected-mode yes --logfile "" \
    </dev/null >"$log" 2>&1 &
  echo $! >"$RUN/redis.pid"
}

kafka_ready() { port_open "$KAFKA_PORT" && grep -q "Kafka Server started" "$LOGS/kafka.log"; }
registry_ready() { curl -fsS "http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7/subjects" >/dev/null; }
clickhouse_ready() { [ "$(curl -fsS "http://127.0.0.1:$CLICKHOUSE_HTTP_PORT/ping" 2>/dev/null)" = "Ok." ]; }
redis_ready() { [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = "PONG" ]; }

do_up() {
  local t0=$SECONDS
  mkdir -p "$LOGS" "$RUN"
  # A taken port is reported before anything is downloaded.
  pid_alive kafka || { check_port_free kafka "$KAFKA_PORT" KAFKA_PORT; check_port_free kafka "$KAFKA_CONTROLLER_PORT" KAFKA_CONTROLLER_PORT; }
  pid_alive registry || check_port_free registry "$REGISTRY_PORT" REGISTRY_PORT
  pid_alive clickhouse || check_clickhouse_ports
  [ "$WITH_REDIS" = 1 ] && { pid_alive redis || check_port_free redis "$REDIS_PORT" REDIS_PORT; }
  do_install
  start_kafka
  start_registry
  start_clickhouse
  [ "$WITH_REDIS" = 1 ] && start_redis
  wait_until clickhouse "$LOGS/clickhouse.log" "$READY_TIMEOUT" clickhouse_ready
  wait_until kafka "$LOGS/kafka.log" "$READY_TIMEOUT" kafka_ready
  wait_until registry "$LOGS/registry.log" "$READY_TIMEOUT" registry_ready
  local extra=""
  if [ "$WITH_REDIS" = 1 ]; then
    wait_until redis "$LOGS/redis.log" "$READY_TIMEOUT" redis_ready
    extra=", redis redis://127.0.0.1:$REDIS_PORT"
  fi
  say "stack up in $((SECONDS - t0))s: kafka 127.0.0.1:$KAFKA_PORT, registry http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7, clickhouse http://127.0.0.1:$CLICKHOUSE_HTTP_PORT$extra"
}

stop_one() {
  local comp="$1"
  if ! pid_alive "$comp"; then rm -f "$RUN/$comp.pid"; say "$comp not running"; return 0; fi
  local pid
  pid=$(cat "$RUN/$comp.pid")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  if kill -0 "$pid" 2>/dev/null; then say "$comp did not stop in 30s; killing"; kill -9 "$pid" 2>/dev/null || true; fi
  rm -f "$RUN/$comp.pid"
  say "$comp stopped"
}

do_down() {
  mkdir -p "$RUN"
  # The registry stores in H2, independent of Kafka; stop order only matters for clean logs.
  stop_one registry
  stop_one clickhouse
  stop_one kafka
  [ -f "$RUN/redis.pid" ] && stop_one redis
  # A stack started before A8 ran ClickHouse 26.9 beside 18.16 as clickhouse-current: stop it too.
  [ -f "$RUN/clickhouse-current.pid" ] && stop_one clickhouse-current
  return 0
}

report_component() { # comp endpoint readyfn: one status line; fails unless the component is up
  if pid_alive "$1" && "$3" >/dev/null 2>&1; then
    printf '%-18s up    pid %-7s %s\n' "$1" "$(cat "$RUN/$1.pid")" "$2"
  elif pid_alive "$1"; then
    printf '%-18s starting pid %-4s %s\n' "$1" "$(cat "$RUN/$1.pid")" "$2"; return 1
  else
    printf '%-18s down                %s\n' "$1" "$2"; return 1
  fi
}

do_status() {
  mkdir -p "$RUN"
  local rc=0
  report() { report_component "$@" || rc=1; }
  report kafka "127.0.0.1:$KAFKA_PORT" kafka_ready
  report registry "http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7" registry_ready
  report clickhouse "http://127.0.0.1:$CLICKHOUSE_HTTP_PORT" clickhouse_ready
  if [ "$WITH_REDIS" = 1 ] || [ -f "$RUN/redis.pid" ]; then report redis "redis://127.0.0.1:$REDIS_PORT" redis_ready; fi
  return $rc
}

# deploy/local/cluster.sh sources this file for its helpers and installers; it runs its own commands.
if [ "${BASH_SOURCE[0]}" != "$0" ]; then return 0; fi

cmd="${1:-}"
[ $# -gt 0 ] && shift
# --profile cluster: three brokers, Redis, two ingest instances behind HAProxy (deploy/local/cluster.sh).
profile=single
rest=()
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) profile="${2:-}"; shift; [ $# -gt 0 ] && shift ;;
    --profile=*) profile="${1#--profile=}"; shift ;;
    *) rest+=("$1"); shift ;;
  esac
done
case "$profile" in
  single) ;;
  cluster) exec bash "$HERE/cluster.sh" "$cmd" "${rest[@]}" ;;
  *) echo "unknown profile: $profile (single or cluster)" >&2; exit 2 ;;
esac
set -- "${rest[@]}"
for arg in "$@"; do
  case "$arg" in
    --with-redis) WITH_REDIS=1 ;;
    --with-clickhouse-current) ;; # before A8 it started 26.9 beside 18.16; now that is the one ClickHouse
    *) [ "$cmd" = logs ] || { echo "unknown option: $arg" >&2; exit 2; } ;;
  esac
done

case "$cmd" in
  up) do_up ;;
  down) do_down ;;
  status) do_status ;;
  install) do_install ;;
  logs) tail -n 50 "$LOGS/${1:-kafka}.log" ;;
  *) echo "usage: $0 up [--with-redis]|down|status|install [--with-redis]|logs [kafka|registry|clickhouse|redis]  (--profile cluster: see deploy/local/cluster.sh)" >&2; exit 2 ;;
esac
