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
#
# The soak: every operation of the API (the five page-content ones and
# Lighthouse included) at a modest rate for 30 minutes, on a server that
# bench/loadbench starts with a Redis and a DNS server of its own;
# Chromium is killed and Redis restarted half-way. Prints the server's
# RSS and goroutines every minute, per-operation p50/p99, the 5xx by
# cause, and the processes and temporary folders left at the end.
#
#   bench/load.sh soak [duration] [rate]                      (default 30m 1)
set -euo pipefail
. "$(dirname "$0")/common.bash"
. "$(dirname "$0")/server.bash"
cd "$(dirname "$0")/.."
if [ "${1:-}" = soak ]; then
  need redis-server redis-server
  chrome=${SITEDIAG_CHROME_PATH:-$(command -v chromium)}
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  go build -o "$work/server" ./examples/server
  go build -o "$work/loadbench" ./bench/loadbench
  "$work/loadbench" -soak "$work/server" -chrome "$chrome" -redis-server "$(command -v redis-server)" \
    -duration "${2:-30m}" -rate "${3:-1}"
  exit
fi

run_loadbench -duration "${1:-60s}" -up "${2:-32}" -screenshot "${3:-8}" -tlsscan "${4:-4}"
