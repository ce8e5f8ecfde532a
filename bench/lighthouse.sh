#!/usr/bin/env bash
# Lighthouse: sitediag's /lighthouse (a warm Node worker and Chromium,
# through the filtering proxy) beside the plain lighthouse CLI (a cold
# Node and Chromium per run, the same pinned package), on the same local
# pages, 5 runs each: medians, ratio, both runs' category scores and
# Lighthouse's own time.
#
#   bench/lighthouse.sh [runs]     (default 5)
set -euo pipefail
. "$(dirname "$0")/common.bash"
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
./scripts/setup.sh
go run ./bench/lighthousebench -n "${1:-5}"
