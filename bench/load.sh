#!/usr/bin/env bash
# 60 s of mixed load on the example server (built by the script): /up
# from 32 callers, /screenshot from 8, /tlsscan from 4, against local
# targets that bench/loadbench serves on 127.0.0.1 (loopback is allowed
# through SITEDIAG_ALLOW_NETWORKS, nothing else). Prints per-operation
# p50/p99 and status counts, the server's RSS, goroutines and processes
# before and after, and a verdict on the goals: no service-caused 5xx,
# every 503 with Retry-After, memory back within 10 % of the baseline.
#
#   bench/load.sh [duration] [up] [screenshot] [tlsscan]     (default 60s 32 8 4)
set -euo pipefail
. "$(dirname "$0")/common.bash"
. "$(dirname "$0")/server.bash"
cd "$(dirname "$0")/.."
run_loadbench -duration "${1:-60s}" -up "${2:-32}" -screenshot "${3:-8}" -tlsscan "${4:-4}"
