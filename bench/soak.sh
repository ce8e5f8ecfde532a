#!/usr/bin/env bash
# Memory over many screenshots: the example server (built by the script)
# serves 5,000 /screenshot calls of a local page from 8 callers; its RSS
# (and Go heap, goroutines, processes) is sampled after the first 1,000
# and at the end, each time after 5 s idle. The goal: within 10 % of each
# other, i.e. nothing kept per job. Prints both samples and the table row.
#
#   bench/soak.sh [calls] [checkpoint] [callers]     (default 5000 1000 8)
set -euo pipefail
. "$(dirname "$0")/common.bash"
. "$(dirname "$0")/server.bash"
cd "$(dirname "$0")/.."
run_loadbench -screenshots "${1:-5000}" -checkpoint "${2:-1000}" -screenshot "${3:-8}"
