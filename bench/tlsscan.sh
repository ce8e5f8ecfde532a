#!/usr/bin/env bash
# Full TLS scan of one local server by sitediag, sslscan and testssl.sh:
# median wall time of each, the ratios, and whether all see the same
# protocol versions. Timings are printed, never judged.
#
#   bench/tlsscan.sh                 # 11 runs each, 3 of testssl (about 2 min a run)
#   RUNS=21 TESTSSL_RUNS=0 bench/tlsscan.sh
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-11}
TESTSSL_RUNS=${TESTSSL_RUNS:-3}

need=()
command -v sslscan >/dev/null || need+=(sslscan)
[ "$TESTSSL_RUNS" -gt 0 ] && ! command -v testssl >/dev/null && need+=(testssl.sh)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "bench: missing ${need[*]} (apt-get install ${need[*]} as root)" >&2
    exit 1
  fi
  apt-get -o DPkg::Lock::Timeout=300 update -q >/dev/null || true
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q "${need[@]}" >/dev/null
fi

work=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/tlsserver" ./bench/tlsserver
go build -o "$work/tlsscan" ./bench/tlsscan
"$work/tlsserver" >"$work/addr" &
server_pid=$!
for _ in $(seq 50); do [ -s "$work/addr" ] && break; sleep 0.1; done
[ -s "$work/addr" ] || { echo "bench: tlsserver printed no address in 5 s" >&2; exit 1; }
addr=$(cat "$work/addr")
echo "target: TLS 1.0–1.3 crypto/tls server on $addr ($(nproc) cores)"

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# time_runs NAME N CMD… : runs CMD N times, one duration (ms) a line in $work/NAME.
time_runs() {
  local name=$1 n=$2
  shift 2
  : >"$work/$name"
  for _ in $(seq "$n"); do
    local t0
    t0=$(now_ms)
    "$@" >"$work/$name.out" 2>&1 || true # testssl exits non-zero when it finds something
    echo $(($(now_ms) - t0)) >>"$work/$name"
  done
}

median() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

time_runs sitediag "$RUNS" "$work/tlsscan" "https://$addr"
"$work/tlsscan" -protocols "https://$addr" >"$work/sitediag.protocols"

time_runs sslscan "$RUNS" sslscan --no-colour "$addr"
grep -E '^(SSLv[23]|TLSv1\.[0-3]) +enabled' "$work/sslscan.out" | awk '{print $1}' >"$work/sslscan.protocols"

tools=(sitediag sslscan)
if [ "$TESTSSL_RUNS" -gt 0 ]; then
  # testssl will not write over a CSV file: each run gets a new one.
  testssl_run() { rm -f "$work/testssl.csv"; testssl --quiet --color 0 --warnings off --csvfile "$work/testssl.csv" "$addr"; }
  time_runs testssl "$TESTSSL_RUNS" testssl_run
  awk -F'","' '$5 ~ /^offered/ {print $1}' "$work/testssl.csv" | tr -d '"' |
    sed -n 's/^SSLv2$/SSLv2/p; s/^SSLv3$/SSLv3/p; s/^TLS1$/TLSv1.0/p; s/^TLS1_1$/TLSv1.1/p; s/^TLS1_2$/TLSv1.2/p; s/^TLS1_3$/TLSv1.3/p' >"$work/testssl.protocols"
  tools+=(testssl)
fi

ours=$(median "$work/sitediag")
printf '\n%-9s %5s %11s %16s  %s\n' tool runs "median ms" "sitediag/tool" "protocols seen"
for t in "${tools[@]}"; do
  m=$(median "$work/$t")
  ratio=$(awk -v a="$ours" -v b="$m" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}')
  printf '%-9s %5s %11s %16s  %s\n' "$t" "$(wc -l <"$work/$t")" "$m" "$ratio" "$(paste -sd' ' "$work/$t.protocols")"
done
echo
for t in "${tools[@]:1}"; do
  if cmp -s "$work/sitediag.protocols" "$work/$t.protocols"; then
    echo "protocol set: sitediag and $t agree"
  else
    echo "protocol set: sitediag and $t DIFFER"
  fi
done
