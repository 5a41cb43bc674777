#!/usr/bin/env bash
# What the browser tests need beyond the stack: Debian's Chromium (never a downloaded browser).
# Idempotent: does nothing when /usr/bin/chromium is there.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
echo "[test-deps] installing Debian's chromium for the browser tests (first run only)..." >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
log="$(mktemp)"
if ! { $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q chromium; } >"$log" 2>&1; then
  echo "[test-deps] FAILED: apt-get install chromium; last lines of $log:" >&2
  tail -n 20 "$log" >&2
  exit 1
fi
echo "[test-deps] chromium installed: $(/usr/bin/chromium --version 2>/dev/null)" >&2
