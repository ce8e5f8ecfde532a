#!/usr/bin/env bash
# /openport over ports 1-1000 beside `nmap -sT -Pn -p1-1000`, with the
# same listeners, on two targets: a loopback address, and (as root) the
# peer of a veth pair in a network namespace of its own whose replies
# are delayed 50 ms by tc netem (or bench/delayline where the kernel
# has no netem), where a connect scan is bound by round
# trips rather than CPU. For each: wall time of every run, the medians,
# the median of the runs' ratios, and whether both found the same open
# ports (a difference fails the script).
#
#   bench/portscan.sh [runs]     (default 5)
set -euo pipefail
. "$(dirname "$0")/common.bash"
runs=${1:-5}
need nmap nmap
need /usr/bin/time time

work=$(mktemp -d)
out=$work/out
listeners=()
ns=sd28ps$$ veth=sd28p$$
cleanup() {
  local pid
  # The namespace's processes first: ip netns exec may have forked them.
  for pid in $(ip netns pids "$ns" 2>/dev/null) "${listeners[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  ip netns del "$ns" 2>/dev/null || true
  ip link del "$veth" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
probe=$(build_probe)
open_ports=21,22,25,80,110,143,443,587,631,993,995
differ=0

# cpu_of FILE CMD... runs CMD and writes the CPU time it used (user and
# system, ms) to FILE: on a shared machine it says more than wall time.
cpu_of() {
  local file=$1
  shift
  /usr/bin/time -f '%U %S' -o "$file" "$@"
  awk '{ printf "%.0f", ($1 + $2) * 1000 }' "$file" >"$file.ms" && mv "$file.ms" "$file"
}

# listen [netns exec prefix...] ADDR starts the listeners on ADDR.
listen() {
  local addr=${*: -1}
  "${@:1:$#-1}" "$probe" listen -addr "$addr" -ports "$open_ports" >"$work/bound.$addr" &
  listeners+=($!)
  for _ in $(seq 50); do [ -s "$work/bound.$addr" ] && break; sleep 0.1; done
  echo "listeners on $addr: $(cat "$work/bound.$addr")"
}

# compare LABEL ADDR runs both scanners on ADDR and prints the table row.
compare() {
  local label=$1 addr=$2 ours=() theirs=() ratios=() our_cpu=() nmap_cpu=() our_open nmap_open
  for i in $(seq "$runs"); do
    ours+=("$(millis cpu_of "$work/cpu.ours" "$probe" openport -target "$addr" -ports 1-1000)")
    our_open=$(cat "$out")
    theirs+=("$(millis cpu_of "$work/cpu.nmap" nmap -sT -Pn -n -p1-1000 -oG - "$addr")")
    nmap_open=$(grep -o '[0-9]*/open/' "$out" | cut -d/ -f1 | sort -n | paste -sd, -)
    ratios+=("$(awk -v a="${ours[-1]}" -v b="${theirs[-1]}" 'BEGIN { printf "%.4f", a / b }')")
    our_cpu+=("$(cat "$work/cpu.ours")") nmap_cpu+=("$(cat "$work/cpu.nmap")")
    echo "$label run $i: sitediag ${ours[-1]} ms ($(cat "$work/cpu.ours") ms CPU), nmap ${theirs[-1]} ms ($(cat "$work/cpu.nmap") ms CPU), ratio ${ratios[-1]}"
    if [ "$our_open" != "$nmap_open" ]; then
      echo "$label run $i: open sets DIFFER: sitediag $our_open, nmap $nmap_open"
      differ=1
    fi
  done
  echo "$label: sitediag median $(median "${ours[@]}") ms, nmap median $(median "${theirs[@]}") ms; open: $our_open"
  row "/openport 1-1000 ($label)" "$(median "${ours[@]}")" "$(median "${theirs[@]}")" ms "nmap -sT -Pn" "<= 0.3" "$runs" "$(median "${ratios[@]}")"
  row "/openport 1-1000 ($label), CPU" "$(median "${our_cpu[@]}")" "$(median "${nmap_cpu[@]}")" "ms CPU" "nmap -sT -Pn" "" "$runs"
}

listen 127.0.0.2
compare loopback 127.0.0.2

if [ "$(id -u)" = 0 ]; then
  # 198.18.0.0/15 is the benchmarking range (RFC 2544); a /30 of it at random.
  net=198.18.$((RANDOM % 256)).$((RANDOM % 64 * 4))
  here=${net%.*}.$((${net##*.} + 1)) there=${net%.*}.$((${net##*.} + 2))
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  ip link add "$veth" type veth peer name eth0 netns "$ns"
  if tc -n "$ns" qdisc add dev eth0 root netem delay 50ms limit 100000 2>/dev/null; then
    delayed_by="tc netem"
  else
    # No sch_netem in this kernel: the same 50 ms on the peer's replies
    # from a TUN delay line (bench/delayline).
    ip link del "$veth"
    (cd "$(dirname "$0")/.." && go build -o "$work/delayline" ./bench/delayline)
    "$work/delayline" -netns "$ns" -host "$veth" -peer eth0 -delay 50ms >"$work/delayline.out" &
    listeners+=($!)
    for _ in $(seq 50); do [ -s "$work/delayline.out" ] && break; sleep 0.1; done
    delayed_by="bench/delayline (the kernel has no sch_netem)"
  fi
  ip addr add "$here/30" dev "$veth"
  ip link set "$veth" up
  ip -n "$ns" addr add "$there/30" dev eth0
  ip -n "$ns" link set eth0 up
  echo "namespace peer $there, replies delayed 50 ms by $delayed_by"
  listen ip netns exec "$ns" "$there"
  compare "netns peer, +50 ms" "$there"
else
  echo "not root: the namespace peer with 50 ms of latency is skipped"
fi
exit "$differ"
