#!/usr/bin/env bash
# What the tests need beyond the stack, each installed once and cached:
#   - Debian's Chromium for the browser tests (never a downloaded browser): nothing to do when
#     /usr/bin/chromium is there;
#   - Schemathesis (PyPI, pinned) in a project-local virtual environment, $STACK_DIR/test-venv (.stack is
#     git-ignored), for test/contract/schemathesis.integration.test.ts: nothing to do when that version is
#     there. Uses the machine's python3 (3.9 or later);
#   - segment-analytics-python and rudder-sdk-python (PyPI, pinned) in the same environment, for
#     test/clients/segment-python.integration.test.ts: nothing to do when those versions are there.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
STACK_DIR="${STACK_DIR:-$ROOT/.stack}"
SCHEMATHESIS_VERSION=4.32.5
VENV="$STACK_DIR/test-venv"
SEGMENT_PYTHON_VERSION=2.4.0
RUDDER_PYTHON_VERSION=2.1.9

fail() { # what log
  echo "[test-deps] FAILED: $1; last lines of $2:" >&2
  tail -n 20 "$2" >&2
  exit 1
}

install_chromium() {
  if [ -x /usr/bin/chromium ]; then return 0; fi
  echo "[test-deps] installing Debian's chromium for the browser tests (first run only)..." >&2
  local sudo="" log
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  log="$(mktemp)"
  { $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q chromium; } >"$log" 2>&1 || fail "apt-get install chromium" "$log"
  echo "[test-deps] chromium installed: $(/usr/bin/chromium --version 2>/dev/null)" >&2
}

install_schemathesis() {
  if [ "$("$VENV/bin/schemathesis" --version 2>/dev/null)" = "schemathesis, version $SCHEMATHESIS_VERSION" ]; then return 0; fi
  echo "[test-deps] installing schemathesis $SCHEMATHESIS_VERSION into $VENV (first run only)..." >&2
  local log
  log="$(mktemp)"
  mkdir -p "$STACK_DIR"
  { python3 -m venv --clear "$VENV" && "$VENV/bin/pip" install -q --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"; } >"$log" 2>&1 || fail "pip install schemathesis==$SCHEMATHESIS_VERSION" "$log"
  echo "[test-deps] $("$VENV/bin/schemathesis" --version)" >&2
}

install_segment_clients() {
  local want="$SEGMENT_PYTHON_VERSION $RUDDER_PYTHON_VERSION" log
  if [ "$("$VENV/bin/python" -c "import importlib.metadata as m; print(m.version('segment-analytics-python'), m.version('rudder-sdk-python'))" 2>/dev/null)" = "$want" ]; then return 0; fi
  echo "[test-deps] installing segment-analytics-python $SEGMENT_PYTHON_VERSION and rudder-sdk-python $RUDDER_PYTHON_VERSION into $VENV (first run only)..." >&2
  log="$(mktemp)"
  "$VENV/bin/pip" install -q --disable-pip-version-check "segment-analytics-python==$SEGMENT_PYTHON_VERSION" "rudder-sdk-python==$RUDDER_PYTHON_VERSION" >"$log" 2>&1 ||
    fail "pip install segment-analytics-python rudder-sdk-python" "$log"
}

install_chromium
install_schemathesis
# After Schemathesis: its install makes the environment anew.
install_segment_clients
