#!/usr/bin/env bash
# The local stack's current ClickHouse alone (docs/design.md A7): ClickHouse 26.9's own HTTP and native
# servers, embedded in PyPI's chdb-core (pinned), run by deploy/local/chdb/server.py. `stack.sh up
# --with-clickhouse-current` starts the same next to the rest of the stack; this script starts, stops
# or shows only this component, so it can join a stack that is already running.
# Usage: clickhouse-current.sh up | down | status | install
#
# Installed on first use into $STACK_DIR/chdb-venv (a marker names the version; pip's cache makes a
# reinstall cheap); config, users and data in $STACK_DIR/clickhouse-current, its log in
# $STACK_DIR/logs/clickhouse-current.log, its pid in $STACK_DIR/run/clickhouse-current.pid.
# Ports: CLICKHOUSE_CURRENT_HTTP_PORT (18223) and CLICKHOUSE_CURRENT_TCP_PORT (19100).
set -euo pipefail
# shellcheck source=deploy/local/stack.sh
source "$(dirname "${BASH_SOURCE[0]}")/stack.sh"

endpoint="http://127.0.0.1:$CLICKHOUSE_CURRENT_HTTP_PORT"
mkdir -p "$LOGS" "$RUN"
case "${1:-}" in
  up)
    t0=$SECONDS
    # A taken port is reported before anything is downloaded.
    pid_alive clickhouse-current || check_clickhouse_current_ports
    install_clickhouse_current
    start_clickhouse_current
    wait_until clickhouse-current "$LOGS/clickhouse-current.log" "$READY_TIMEOUT" clickhouse_current_ready
    say "clickhouse-current up in $((SECONDS - t0))s: $endpoint, native 127.0.0.1:$CLICKHOUSE_CURRENT_TCP_PORT"
    ;;
  down) stop_one clickhouse-current ;;
  install) install_clickhouse_current ;;
  status) report_component clickhouse-current "$endpoint" clickhouse_current_ready ;;
  *) echo "usage: $0 up|down|status|install" >&2; exit 2 ;;
esac
