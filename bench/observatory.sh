#!/usr/bin/env bash
# Security headers: the report page's grader (httpapi/ui/observatory.js)
# beside the MDN HTTP Observatory's own analyzer and score table, on the
# header sets of bench/observatory/cases.json (one response each, with
# whether it came over HTTPS and whether its certificate is trusted).
# Prints each case's score and grade from both and every test whose
# modifier differs, and the agreement as a row of the benchmark table
# (goal: every case the same). The Observatory is pinned in
# bench/observatory/package.json + lock and installed here, never by make
# run.
#
#   bench/observatory.sh [cases.json]
set -euo pipefail
. "$(dirname "$0")/common.bash"
dir=$(cd "$(dirname "$0")" && pwd)/observatory
# --ignore-scripts: the package's install script downloads the HSTS
# preload list, which offline cannot be had; an empty list stands in (no
# case names a preloaded host).
npm_peers observatory --ignore-scripts
preload=$dir/node_modules/@mdn/mdn-http-observatory/conf/hsts-preload.json
if [ ! -f "$preload" ]; then
  mkdir -p "$(dirname "$preload")"
  echo '{}' >"$preload"
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
node "$dir/compare.mjs" "$@" | tee "$out" || status=$?
read -r agree cases < <(sed -n 's/^\([0-9]*\) of \([0-9]*\) cases graded the same.*/\1 \2/p' "$out")
row "security headers grade, cases the same" "$agree" "$cases" cases "MDN HTTP Observatory 1.4.8" ">= 1" "$cases"
exit "$status"
