#!/usr/bin/env bash
# Brand: a cold /brand extraction and a cached one on fixture sites of
# testdata/brand, beside dembrandt (npm, pinned in bench/brand with a
# lock, installed here) running against a Chromium of ours over CDP,
# through sitediag's filtering proxy; colours and fonts side by side.
#
#   bench/brand.sh [-sites a,b,…]
set -euo pipefail
. "$(dirname "$0")/common.bash"
root=$(cd "$(dirname "$0")/.." && pwd)
need node nodejs
need npm npm
if [ ! -d "$root/bench/brand/node_modules" ]; then
  (cd "$root/bench/brand" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
fi
cd "$root"
go run ./bench/brandbench "$@" bench/brand/node_modules/dembrandt/dist/index.js
