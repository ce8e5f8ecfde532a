#!/usr/bin/env bash
# Screenshot and PDF of a local page through sitediag's HTTP API (warm
# browser) beside a cold `chromium --headless --screenshot` and
# `--print-to-pdf` of the same page, with medians and ratios; then the
# memory (PSS, from /proc/<pid>/smaps_rollup) of the browser's processes
# while 8 jobs run at once. Everything stays on 127.0.0.1. Timings are
# reported, never judged. The Go side is bench/browserbench.
#
#   bench/browser.sh [-n runs] [-concurrency jobs]     (default 10, 8)
set -euo pipefail
. "$(dirname "$0")/common.bash"
[ -n "${SITEDIAG_CHROME_PATH:-}" ] || need chromium chromium
cd "$(dirname "$0")/.."
exec go run ./bench/browserbench "$@"
