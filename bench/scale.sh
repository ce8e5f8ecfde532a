#!/usr/bin/env bash
# /screenshot throughput of the example server with its own local
# browser, then with two remote browsers (two Chromium processes this
# script starts, given to the server as SITEDIAG_BROWSER_URL=a,b), on
# the same local page, and the ratio. Everything stays on 127.0.0.1.
# Timings are reported, never judged.
#
#   bench/scale.sh [jobs] [concurrency]     (default 24, 4)
set -euo pipefail
. "$(dirname "$0")/common.bash"
[ -n "${SITEDIAG_CHROME_PATH:-}" ] || need chromium chromium
need curl curl
need python3 python3
chrome=${SITEDIAG_CHROME_PATH:-$(command -v chromium)}
jobs=${1:-24}
conc=${2:-4}
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

# start_server LOG [ENV…] runs the example server and sets addr and
# server_pid.
start_server() {
  local log=$1
  shift
  env SITEDIAG_API_KEYS=bench SITEDIAG_RATE_LIMIT=0 SITEDIAG_ALLOW_NETWORKS=127.0.0.1/32 \
    SITEDIAG_CHROME_PATH="$chrome" "$@" "$work/server" -addr 127.0.0.1:0 -data-dir "$work/data-$log" 2>"$work/$log" >/dev/null &
  pids+=($!)
  server_pid=$!
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

# throughput ADDR prints screenshots per second over $jobs jobs, $conc at
# once, after two warm-up jobs; every job must answer 200.
throughput() {
  local addr=$1 start end codes
  shot "$addr" >/dev/null; shot "$addr" >/dev/null
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
echo "page: $site; $jobs /screenshot jobs, $conc at once; 2 job slots per browser"
echo

start_server local.log
one=$(throughput "$addr")
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
echo "one local browser:   $one screenshots/s"

start_remote remote-a; a=$remote
start_remote remote-b; b=$remote
start_server fleet.log SITEDIAG_BROWSER_URL="$a,$b"
two=$(throughput "$addr")
echo "two remote browsers: $two screenshots/s ($a, $b)"
awk -v a="$two" -v b="$one" 'BEGIN { printf "ratio (two remote / one local): %.2fx\n", a / b }'
row "/screenshot, two remote browsers" "$two" "$one" "shots/s" "one local browser" "" 1
