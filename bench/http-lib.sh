# Shared by the HTTP probe benchmarks (ttfb.sh, brokenlink.sh): sourced,
# not run. Builds probebench, starts the local site and offers need and
# median.

# need CMD PKG installs the Debian package PKG when CMD is missing.
need() {
  command -v "$1" >/dev/null 2>&1 && return
  if [ "$(id -u)" != 0 ]; then
    echo "bench: $1 is missing; install it as root: apt-get install $2" >&2
    exit 1
  fi
  echo "bench: installing $2" >&2
  apt-get -o DPkg::Lock::Timeout=300 update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q "$2" >/dev/null
}

# median reads numbers, one a line, and prints their median.
median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) printf "%.3f\n", v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ratio A B prints A/B to two decimals.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f\n", a / b }'; }

# start_site builds probebench into $work and serves the local site; it
# sets $bin and $site (the base URL). The site stops when this shell
# exits (its stdin is a pipe held open by fd 3).
start_site() {
  work=$(mktemp -d)
  bin="$work/probebench"
  go build -o "$bin" ./bench/cmd/probebench
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
