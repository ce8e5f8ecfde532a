#!/usr/bin/env bash
# /screenshot throughput of the example server with its own local
# browser beside a second server with two remote browsers (two Chromium
# processes this script starts, given to it as SITEDIAG_BROWSER_URL=a,b),
# on the same local page: rounds of jobs on one then the other, so both
# see the same load; prints each round and the medians, and the median of
# the rounds' ratios as the table row. Everything stays on 127.0.0.1.
# Timings are reported, never judged.
#
#   bench/scale.sh [jobs] [concurrency] [rounds]     (default 16, 4, 5)
set -euo pipefail
. "$(dirname "$0")/common.bash"
[ -n "${SITEDIAG_CHROME_PATH:-}" ] || need chromium chromium
need curl curl
need python3 python3
chrome=${SITEDIAG_CHROME_PATH:-$(command -v chromium)}
jobs=${1:-16}
conc=${2:-4}
rounds=${3:-5}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/server" ./examples/server
go build -o "$work/browserflags" ./bench/browserflags

# free_port prints a port nothing listens on now.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# The page: text, styles and a dozen small images.
mkdir -p "$work/site"
{
  echo '<!doctype html><html><head><title>Scale bench</title><style>body{font:16px sans-serif;max-width:960px;margin:auto}.c{border:1px solid #ccc;margin:12px;padding:12px}</style></head><body><h1>Scale bench</h1>'
  for i in $(seq 12); do echo "<div class=c><h2>Section $i</h2><img src=img.svg?$i width=120 height=60><p>Lorem ipsum dolor sit amet.</p></div>"; done
  echo '</body></html>'
} >"$work/site/index.html"
echo '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60"><rect width="120" height="60" fill="#c60"/></svg>' >"$work/site/img.svg"
site_port=$(free_port)
python3 -m http.server --bind 127.0.0.1 --directory "$work/site" "$site_port" >/dev/null 2>&1 &
pids+=($!)
site="http://127.0.0.1:$site_port/"

# start_remote NAME starts a Chromium with sitediag's flags (the
# browser-wide proxy is a closed port: outside the jobs' own proxies it
# reaches nothing) and sets remote to its http://127.0.0.1:port.
start_remote() {
  local dead flags=() port
  dead=$(free_port)
  mapfile -t flags < <("$work/browserflags" "http://127.0.0.1:$dead" "$work/$1")
  "$chrome" "${flags[@]}" about:blank >/dev/null 2>"$work/$1.log" &
  pids+=($!)
  for _ in $(seq 100); do
    port=$(sed -n 's|^DevTools listening on ws://127.0.0.1:\([0-9]*\)/.*|\1|p' "$work/$1.log")
    [ -n "$port" ] && { remote="http://127.0.0.1:$port"; return; }
    sleep 0.1
  done
  echo "bench: $1 did not start: $(cat "$work/$1.log")" >&2
  exit 1
}

# start_server LOG [ENV…] runs the example server and sets addr.
start_server() {
  local log=$1
  shift
  env SITEDIAG_API_KEYS=bench SITEDIAG_RATE_LIMIT=0 SITEDIAG_ALLOW_NETWORKS=127.0.0.1/32 \
    SITEDIAG_CHROME_PATH="$chrome" "$@" "$work/server" -addr 127.0.0.1:0 -data-dir "$work/data-$log" 2>"$work/$log" >/dev/null &
  pids+=($!)
  for _ in $(seq 100); do
    addr=$(sed -n 's/.*msg=listening addr=\([^ ]*\).*/\1/p' "$work/$log")
    [ -n "$addr" ] && return
    sleep 0.1
  done
  echo "bench: server did not start: $(cat "$work/$log")" >&2
  exit 1
}

shot() {
  curl -s -o /dev/null -w '%{http_code}\n' -H 'x-api-key: bench' -H 'Content-Type: application/json' \
    -d "{\"url\":\"$site\"}" "http://$1/screenshot"
}

# warm ADDR makes the two first jobs of a server, which start its browser.
warm() { shot "$1" >/dev/null; shot "$1" >/dev/null; }

# throughput ADDR prints screenshots per second over $jobs jobs, $conc at
# once; every job must answer 200.
throughput() {
  local addr=$1 start end codes
  export -f shot; export site
  start=$(date +%s%N)
  codes=$(seq "$jobs" | xargs -P "$conc" -I{} bash -c "shot $addr")
  end=$(date +%s%N)
  if [ "$(grep -c '^200$' <<<"$codes")" != "$jobs" ]; then
    echo "bench: not every job answered 200: $(sort <<<"$codes" | uniq -c | tr '\n' ' ')" >&2
    exit 1
  fi
  awk -v n="$jobs" -v ns=$((end - start)) 'BEGIN { printf "%.2f", n / (ns / 1e9) }'
}

echo "chromium: $chrome"
echo "page: $site; $rounds rounds of $jobs /screenshot jobs on each server, $conc at once; 2 job slots per browser"
echo

start_server local.log
local_addr=$addr
start_remote remote-a; a=$remote
start_remote remote-b; b=$remote
start_server fleet.log SITEDIAG_BROWSER_URL="$a,$b"
fleet_addr=$addr
echo "one local browser: $local_addr; two remote browsers ($a, $b): $fleet_addr"
warm "$local_addr"
warm "$fleet_addr"
ones=() twos=() ratios=()
for i in $(seq "$rounds"); do
  ones+=("$(throughput "$local_addr")")
  twos+=("$(throughput "$fleet_addr")")
  ratios+=("$(awk -v a="${twos[-1]}" -v b="${ones[-1]}" 'BEGIN { printf "%.4f", a / b }')")
  echo "round $i: one local browser ${ones[-1]} screenshots/s, two remote browsers ${twos[-1]} screenshots/s, ratio ${ratios[-1]}"
done
echo "medians: one local browser $(median "${ones[@]}") screenshots/s, two remote browsers $(median "${twos[@]}") screenshots/s; ratio (two remote / one local) $(median "${ratios[@]}")"
row "/screenshot throughput, two remote browsers" "$(median "${twos[@]}")" "$(median "${ones[@]}")" "shots/s" "one local browser" "" \
  "$rounds" "$(median "${ratios[@]}")"
