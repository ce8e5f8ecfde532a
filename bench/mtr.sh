#!/usr/bin/env bash
# /mtr beside `mtr -r -n -c 5 -G 0.5` inside a namespace topology built
# here (client -> router -> router -> target, documentation addresses, as
# in internal/netnstest): wall time of each run, medians, ratio, and the
# hop lists of both (different hops fail the script). Needs root; the
# namespaces carry this script's PID and a random suffix and are deleted
# on exit.
#
#   bench/mtr.sh [runs] [target]     (defaults: 5 runs, 203.0.113.2)
set -euo pipefail
. "$(dirname "$0")/common.bash"
runs=${1:-5}
target=${2:-203.0.113.2}
[ "$(id -u)" = 0 ] || { echo "bench/mtr.sh: needs root (network namespaces, raw sockets)" >&2; exit 1; }
need mtr mtr-tiny
need ip iproute2

work=$(mktemp -d)
out=$work/out
p="sdb-$$-$(head -c3 /dev/urandom | od -An -tx1 | tr -d ' \n')-"
made=()
cleanup() {
  for ns in "${made[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

for n in c r1 r2 t; do
  ip netns add "$p$n"
  made+=("$p$n")
  ip netns exec "$p$n" sysctl -q -w net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
  ip -n "$p$n" link set lo up
done
link() { # nsA ifA v4A v6A nsB ifB v4B v6B
  ip -n "$p$1" link add "$2" type veth peer name "$6" netns "$p$5"
  ip -n "$p$1" addr add "$3" dev "$2"; ip -n "$p$1" -6 addr add "$4" dev "$2" nodad; ip -n "$p$1" link set "$2" up
  ip -n "$p$5" addr add "$7" dev "$6"; ip -n "$p$5" -6 addr add "$8" dev "$6" nodad; ip -n "$p$5" link set "$6" up
}
link c eth0 192.0.2.2/24 2001:db8:1::2/64 r1 eth0 192.0.2.1/24 2001:db8:1::1/64
link r1 eth1 198.51.100.1/24 2001:db8:2::1/64 r2 eth0 198.51.100.2/24 2001:db8:2::2/64
link r2 eth1 203.0.113.1/24 2001:db8:3::1/64 t eth0 203.0.113.2/24 2001:db8:3::2/64
ip -n "${p}c" route add default via 192.0.2.1; ip -n "${p}c" -6 route add default via 2001:db8:1::1
ip -n "${p}r1" route add 203.0.113.0/24 via 198.51.100.2; ip -n "${p}r1" -6 route add 2001:db8:3::/64 via 2001:db8:2::2
ip -n "${p}r2" route add 192.0.2.0/24 via 198.51.100.1; ip -n "${p}r2" -6 route add 2001:db8:1::/64 via 2001:db8:2::1
ip -n "${p}t" route add default via 203.0.113.1; ip -n "${p}t" -6 route add default via 2001:db8:3::1
for r in r1 r2; do
  ip netns exec "$p$r" sysctl -q -w net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
    net.ipv4.icmp_ratelimit=0 net.ipv6.icmp.ratelimit=0
done
sleep 1.5 # the kernel attaches the veths' queues up to a second after carrier

probe=$(build_probe)
allow=192.0.2.0/24,198.51.100.0/24,203.0.113.0/24,2001:db8::/32
ours=() theirs=()
for i in $(seq "$runs"); do
  ours+=("$(millis ip netns exec "${p}c" "$probe" mtr -target "$target" -count 5 -allow "$allow")")
  our_hops=$(awk '{print $2}' "$out" | paste -sd' ' -)
  cp "$out" "$work/ours.txt"
  theirs+=("$(millis ip netns exec "${p}c" mtr -r -n -c 5 -G 0.5 "$target")")
  mtr_hops=$(awk '/\|--/ {print $2}' "$out" | paste -sd' ' -)
  cp "$out" "$work/theirs.txt"
  echo "run $i: sitediag ${ours[-1]} ms, mtr ${theirs[-1]} ms"
done

echo "--- sitediag /mtr (last run)"; cat "$work/ours.txt"
echo "--- mtr -r -n -c 5 -G 0.5 (last run)"; cat "$work/theirs.txt"
m_ours=$(median "${ours[@]}")
m_theirs=$(median "${theirs[@]}")
echo "sitediag /mtr count 5:   median ${m_ours} ms over $runs runs; hops: ${our_hops}"
echo "mtr -r -n -c 5 -G 0.5:   median ${m_theirs} ms over $runs runs; hops: ${mtr_hops}"
awk -v a="$m_ours" -v b="$m_theirs" 'BEGIN { printf "ratio sitediag/mtr: %.2f\n", (b > 0 ? a / b : 0) }'
row "/mtr count 5" "$m_ours" "$m_theirs" ms "mtr -r -c 5" "" "$runs"
# As the other scripts: a timing never fails, a disagreement does.
if [ "$our_hops" = "$mtr_hops" ]; then echo "hops: same"; else echo "hops: DIFFER"; exit 1; fi
