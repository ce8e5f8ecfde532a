#!/usr/bin/env bash
# Time to first byte: sitediag's /ttfb (the library's TTFB, a fresh
# connection per measurement) beside curl -w '%{time_starttransfer}' (a
# fresh process per measurement), against the same local site: /fast
# answers at once, /slow after 20 ms. Prints the median of N runs of each
# (N=21 by default) and the ratio sitediag/curl; a ratio near 1 means both
# measure the same thing. Never fails on timing.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/http-lib.sh
need curl curl
N=${N:-21}
start_site

echo "ttfb: median of $N runs each, milliseconds, against $site"
printf '%-8s %12s %12s %8s\n' path sitediag curl ratio
for path in /fast /slow; do
  ours=$("$bin" ttfb -n "$N" "$site$path" | median)
  theirs=$(for _ in $(seq "$N"); do
    curl -s -o /dev/null -w '%{time_starttransfer}\n' "$site$path"
  done | awk '{ printf "%.3f\n", $1 * 1000 }' | median)
  printf '%-8s %12s %12s %8s\n' "$path" "$ours" "$theirs" "$(ratio "$ours" "$theirs")"
done
