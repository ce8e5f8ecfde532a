#!/usr/bin/env bash
# Broken links: sitediag's /brokenlink (the library's BrokenLink) beside
# linkchecker on the same local page of 500 links (40 answer 404, 10
# answer 500). Both check the page and its links without recursing
# further, 8 requests at a time on the one host (sitediag's per-host
# default; linkchecker threads=8), and linkchecker's per-host rate limit
# is lifted (the site sends the LinkChecker header that allows it, and
# maxrequestspersecond is set far above what it reaches). Prints the
# median wall times and the ratio sitediag/linkchecker; sitediag runs in
# one process, so linkchecker's start-up (its --version) is printed too.
#
#   bench/brokenlink.sh [runs]     (default 5)
set -euo pipefail
. "$(dirname "$0")/common.bash"
. "$(dirname "$0")/http.bash"
runs=${1:-5}
need linkchecker linkchecker
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

mapfile -t ours < <("$bin" brokenlink -n "$runs" "$page" 2>"$work/ours.log")
theirs=() startup=()
for _ in $(seq "$runs"); do
  out=/dev/null
  startup+=("$(millis linkchecker --version 2>/dev/null)")
  out=$work/theirs.log # linkchecker exits 1 when it finds broken links
  theirs+=("$(millis linkchecker -f "$work/linkcheckerrc" --no-status --no-robots -r 1 -o text "$page" 2>/dev/null)")
done

a=$(median "${ours[@]}") b=$(median "${theirs[@]}")
echo "brokenlink: median of $runs runs each, milliseconds, 500-link page at $page"
tail -n 1 "$work/ours.log"
echo "linkchecker: $(grep -E "links? in .* checked" "$out" | tail -n 1)"
printf '%-12s %12s %12s %8s\n' "" sitediag linkchecker ratio
printf '%-12s %12s %12s %8s\n' "wall time" "$a" "$b" "$(ratio "$a" "$b")"
row "/brokenlink, 500 links" "$a" "$b" ms linkchecker "" "$runs"
echo "(linkchecker start-up alone, --version: $(median "${startup[@]}") ms)"
