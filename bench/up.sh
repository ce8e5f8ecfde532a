#!/usr/bin/env bash
# /up throughput through the API beside the floor a plain Go client
# reaches on the same machine: 8 workers for 5 s each, against a local
# page whose name a local DNS server resolves (bench/upbench). The floor
# resolves the name with the same DNS server and opens a fresh
# connection per request, the least a diagnosis must do. The two take
# turns for 5 rounds; prints req/s for each and the median ratio
# api/floor.
#
#   bench/up.sh [workers] [duration of a turn] [rounds]     (default 8 2s 5)
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./bench/upbench -workers "${1:-8}" -duration "${2:-2s}" -rounds "${3:-5}"
