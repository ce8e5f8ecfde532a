#!/usr/bin/env bash
# /up throughput through the API beside the floor a plain Go client
# reaches on the same machine: 8 workers for 5 s each, against a local
# page whose name a local DNS server resolves (bench/upbench). The floor
# resolves the name with the same DNS server and opens a fresh
# connection per request, the least a diagnosis must do. Prints req/s
# for each and the ratio api/floor.
#
#   bench/up.sh [workers] [duration]     (default 8 5s)
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./bench/upbench -workers "${1:-8}" -duration "${2:-5s}"
