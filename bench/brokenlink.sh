#!/usr/bin/env bash
# Broken links: sitediag's /brokenlink (the library's BrokenLink) beside
# linkchecker on the same local page of 500 links (40 answer 404, 10
# answer 500). Both check the page and its links without recursing
# further, 8 requests at a time on the one host (sitediag's per-host
# default; linkchecker threads=8), and linkchecker's per-host rate limit
# is lifted (the site sends the LinkChecker header that allows it, and
# maxrequestspersecond is set far above what it reaches). Prints the
# median wall time of N runs of each (N=5 by default) and the ratio
# sitediag/linkchecker; sitediag runs in one process, so linkchecker's
# start-up (its --version) is printed too. Never fails on timing.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/http-lib.sh
need linkchecker linkchecker
N=${N:-5}
start_site
page="$site/links"

# linkchecker drops root privileges to nobody: its files must be readable.
chmod 755 "$work"
cat >"$work/linkcheckerrc" <<'RC'
[checking]
threads=8
maxrequestspersecond=1000000
RC
chmod 644 "$work/linkcheckerrc"

ours=$("$bin" brokenlink -n "$N" "$page" 2>"$work/ours.log" | median)
theirs=$(for _ in $(seq "$N"); do
  start=$(date +%s.%N)
  linkchecker -f "$work/linkcheckerrc" --no-status --no-robots -r 1 -o text "$page" >"$work/theirs.log" 2>&1 || true
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }'
done | median)

startup=$(for _ in $(seq "$N"); do
  start=$(date +%s.%N)
  linkchecker --version >/dev/null 2>&1 || true
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }'
done | median)

echo "brokenlink: median of $N runs each, seconds, 500-link page at $page"
tail -n 1 "$work/ours.log"
echo "linkchecker: $(grep -E "links? in .* checked" "$work/theirs.log" | tail -n 1)"
printf '%-12s %12s %12s %8s\n' "" sitediag linkchecker ratio
printf '%-12s %12s %12s %8s\n' "wall time" "$ours" "$theirs" "$(ratio "$ours" "$theirs")"
echo "(linkchecker start-up alone, --version: $startup s)"
