# Shared by the HTTP probe benchmarks (ttfb.sh, brokenlink.sh), beside
# common.bash: builds bench/httpbench and starts its local site. Source
# it; it is not a benchmark itself.

# ratio A B prints A/B to two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f\n", a / b }'; }

# start_site builds bench/httpbench into a new $work and serves the local
# site; it sets $bin and $site (the base URL). The site and $work go when
# the script exits: the site's stdin is a pipe held open by fd 3, and the
# EXIT trap kills it by PID too.
start_site() {
  work=$(mktemp -d)
  bin="$work/httpbench"
  (cd "$(dirname "${BASH_SOURCE[0]}")/.." && go build -o "$bin" ./bench/httpbench)
  mkfifo "$work/stdin"
  "$bin" serve <"$work/stdin" >"$work/url" &
  site_pid=$!
  exec 3>"$work/stdin"
  trap stop_site EXIT
  for _ in $(seq 100); do
    [ -s "$work/url" ] && break
    sleep 0.05
  done
  site=$(cat "$work/url")
  [ -n "$site" ] || { echo "bench: the local site did not start" >&2; exit 1; }
}

# stop_site ends the site and removes $work, keeping the script's status.
stop_site() {
  local status=$?
  exec 3>&-
  kill "$site_pid" 2>/dev/null || true
  wait "$site_pid" 2>/dev/null || true
  rm -rf "$work"
  exit "$status"
}
