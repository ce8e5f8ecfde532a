# Shared by the bench scripts: install a missing peer tool or the npm
# peers of a bench, time a command, take a median. Source it; it is not a
# benchmark itself.

# need CMD PKG installs Debian package PKG when CMD is missing.
need() {
  command -v "$1" >/dev/null 2>&1 && return
  if [ "$(id -u)" != 0 ]; then
    echo "bench: $1 is missing; install it with: apt-get install $2" >&2
    exit 1
  fi
  echo "bench: installing $2" >&2
  apt-get -o DPkg::Lock::Timeout=300 update -q >/dev/null || true
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q "$2" >/dev/null
}

# npm_peers DIR [NPM_CI_ARG...] installs the npm peers pinned in bench/DIR
# (its package.json and lock) with npm ci and the arguments given, unless
# they are installed. None downloads a browser: the peers that drive one
# run on our Chromium.
npm_peers() {
  local dir
  dir="$(dirname "${BASH_SOURCE[0]}")/$1"
  shift
  need node nodejs
  need npm npm
  [ -f "$dir/node_modules/.package-lock.json" ] && return
  (cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci "$@" --no-audit --no-fund --loglevel=error)
}

# millis CMD... runs CMD, sends its output to $out, prints the wall time
# in milliseconds.
millis() {
  local start end
  start=$(date +%s%N)
  "$@" >"$out"
  end=$(date +%s%N)
  echo $(( (end - start) / 1000000 ))
}

# median N... prints the median of the numbers.
median() {
  printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'
}

# build_probe builds bench/probe into $work and prints its path.
build_probe() {
  (cd "$(dirname "${BASH_SOURCE[0]}")/.." && go build -o "$work/probe" ./bench/probe)
  echo "$work/probe"
}

. "$(dirname "${BASH_SOURCE[0]}")/row.bash"
