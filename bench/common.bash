# Shared by the bench scripts: install a missing peer tool, time a
# command, take a median. Source it; it is not a benchmark itself.

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

# row OPERATION OURS PEER UNIT PEER_NAME GOAL RUNS [RATIO] prints one line
# of the benchmark table (see bench/benchrow) for bench/run.sh to gather:
# the medians, the ratio ours/peer (of the medians unless RATIO is
# given), the goal ("<= 0.3", ">= 0.8" or "") and the one-minute load
# average now.
row() {
  local ratio=${8:-}
  [ -n "$ratio" ] || ratio=$(awk -v a="$2" -v b="$3" 'BEGIN { printf "%.4f", (b > 0 ? a / b : 0) }')
  jq -cn --arg op "$1" --argjson ours "$2" --argjson peer "$3" --arg unit "$4" --arg peerName "$5" \
    --arg goal "$6" --argjson runs "$7" --argjson ratio "$ratio" --argjson load "$(cut -d' ' -f1 /proc/loadavg)" \
    '{operation: $op, ours: $ours, peer: $peer, unit: $unit, peerName: $peerName, ratio: $ratio, goal: $goal, runs: $runs, load: $load}' |
    sed 's/^/BENCHROW /'
}
