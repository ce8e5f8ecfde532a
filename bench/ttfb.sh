#!/usr/bin/env bash
# Time to first byte: sitediag's /ttfb (the library's TTFB, a fresh
# connection per measurement) beside curl -w '%{time_starttransfer}' (a
# fresh process per measurement), against the same local site: /fast
# answers at once, /slow after 20 ms. Prints the median of each and the
# ratio sitediag/curl; a ratio near 1 means both measure the same thing.
#
#   bench/ttfb.sh [runs]     (default 21)
set -euo pipefail
. "$(dirname "$0")/common.bash"
. "$(dirname "$0")/http.bash"
runs=${1:-21}
need curl curl
start_site

echo "ttfb: median of $runs runs each, milliseconds, against $site"
printf '%-8s %12s %12s %8s\n' path sitediag curl ratio
for path in /fast /slow; do
  mapfile -t ours < <("$bin" ttfb -n "$runs" "$site$path")
  theirs=()
  for _ in $(seq "$runs"); do
    theirs+=("$(curl -s -o /dev/null -w '%{time_starttransfer}' "$site$path" | awk '{ printf "%.3f", $1 * 1000 }')")
  done
  a=$(median "${ours[@]}") b=$(median "${theirs[@]}")
  printf '%-8s %12s %12s %8s\n' "$path" "$a" "$b" "$(ratio "$a" "$b")"
  row "/ttfb $path" "$a" "$b" ms curl "" "$runs"
done
