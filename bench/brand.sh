#!/usr/bin/env bash
# Brand: a cold /brand extraction and a cached one on fixture sites of
# testdata/brand, beside dembrandt (npm, pinned in bench/brand with a
# lock, installed here) running against a Chromium of ours over CDP,
# through sitediag's filtering proxy; colours and fonts side by side.
#
#   bench/brand.sh [-sites a,b,…]
set -euo pipefail
. "$(dirname "$0")/common.bash"
npm_peers brand
cd "$(dirname "$0")/.."
go run ./bench/brandbench "$@" bench/brand/node_modules/dembrandt/dist/index.js
