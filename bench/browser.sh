#!/usr/bin/env bash
# Screenshot and PDF of a local page through sitediag's HTTP API (warm
# browser) beside a cold `chromium --headless --screenshot` and
# `--print-to-pdf` of the same page, with medians and ratios; then the
# memory (PSS, from /proc/<pid>/smaps_rollup) of the browser's processes
# while 8 jobs run at once. Everything stays on 127.0.0.1. Timings are
# reported, never judged.
#
#   bench/browser.sh [-n runs] [-concurrency jobs]
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1 && [ -z "${SITEDIAG_CHROME_PATH:-}" ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get -o DPkg::Lock::Timeout=300 update -q >/dev/null || true
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q chromium >/dev/null
  else
    echo "bench/browser.sh: needs Chromium (as root: apt-get install chromium)" >&2
    exit 1
  fi
fi
exec go run ./bench/browserbench "$@"
