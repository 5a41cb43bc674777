#!/usr/bin/env bash
# The local stack's ClickHouse alone (docs/design.md A7, A8): ClickHouse 26.9's own HTTP and native
# servers, embedded in PyPI's chdb-core (pinned), run by deploy/local/chdb/server.py. `stack.sh up`
# starts the same with the rest of the stack; this script starts, stops or shows only this component,
# so it can be restarted (after a crash, or to apply a change of users.xml) in a stack that is running.
# Usage: clickhouse.sh up | down | status | install
#
# Installed on first use into $STACK_DIR/chdb-venv (a marker names the version; pip's cache makes a
# reinstall cheap); config and users in $STACK_DIR/clickhouse, data in $STACK_DIR/clickhouse/db, its
# log in $STACK_DIR/logs/clickhouse.log, its pid in $STACK_DIR/run/clickhouse.pid.
# Ports: CLICKHOUSE_HTTP_PORT (18123) and CLICKHOUSE_TCP_PORT (19000).
set -euo pipefail
# shellcheck source=deploy/local/stack.sh
source "$(dirname "${BASH_SOURCE[0]}")/stack.sh"

endpoint="http://127.0.0.1:$CLICKHOUSE_HTTP_PORT"
mkdir -p "$LOGS" "$RUN"
case "${1:-}" in
  up)
    t0=$SECONDS
    # A taken port is reported before anything is downloaded.
    pid_alive clickhouse || check_clickhouse_ports
    install_clickhouse
    start_clickhouse
    wait_until clickhouse "$LOGS/clickhouse.log" "$READY_TIMEOUT" clickhouse_ready
    say "clickhouse up in $((SECONDS - t0))s: $endpoint, native 127.0.0.1:$CLICKHOUSE_TCP_PORT"
    ;;
  down) stop_one clickhouse ;;
  install) install_clickhouse ;;
  status) report_component clickhouse "$endpoint" clickhouse_ready ;;
  *) echo "usage: $0 up|down|status|install" >&2; exit 2 ;;
esac
