#!/usr/bin/env bash
# /openport over ports 1-1000 beside `nmap -sT -Pn -p1-1000`, on the same
# loopback address with the same listeners: wall time of each run, the
# medians, the ratio, and whether both found the same open ports.
#
#   bench/portscan.sh [runs] [address]     (defaults: 5 runs, 127.0.0.2)
set -euo pipefail
. "$(dirname "$0")/common.bash"
runs=${1:-5}
addr=${2:-127.0.0.2}
need nmap nmap

work=$(mktemp -d)
out=$work/out
listener=
cleanup() {
  [ -n "$listener" ] && kill "$listener" 2>/dev/null && wait "$listener" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

probe=$(build_probe)
"$probe" listen -addr "$addr" -ports 21,22,25,80,110,143,443,587,631,993,995 >"$work/bound" &
listener=$!
for _ in $(seq 50); do [ -s "$work/bound" ] && break; sleep 0.1; done
echo "listeners on $addr: $(cat "$work/bound")"

ours=() theirs=()
for i in $(seq "$runs"); do
  ours+=("$(millis "$probe" openport -target "$addr" -ports 1-1000)")
  our_open=$(cat "$out")
  theirs+=("$(millis nmap -sT -Pn -n -p1-1000 -oG - "$addr")")
  nmap_open=$(grep -o '[0-9]*/open/' "$out" | cut -d/ -f1 | sort -n | paste -sd, -)
  echo "run $i: sitediag ${ours[-1]} ms, nmap ${theirs[-1]} ms"
done

m_ours=$(median "${ours[@]}")
m_theirs=$(median "${theirs[@]}")
echo "sitediag /openport 1-1000: median ${m_ours} ms over $runs runs; open: ${our_open}"
echo "nmap -sT -Pn -p1-1000:     median ${m_theirs} ms over $runs runs; open: ${nmap_open}"
awk -v a="$m_ours" -v b="$m_theirs" 'BEGIN { printf "ratio sitediag/nmap: %.2f\n", (b > 0 ? a / b : 0) }'
if [ "$our_open" = "$nmap_open" ]; then echo "open sets: same"; else echo "open sets: DIFFER"; fi
